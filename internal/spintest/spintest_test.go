package spintest_test

import (
	"testing"

	"github.com/seed4d941b13/uidgen/internal/spintest"
)

// TestCheck: a counter under a lock verifies, and without the lock SPIN
// finds the lost add, so Check runs the verifier and reads its report.
func TestCheck(t *testing.T) {
	spintest.Check(t, spintest.Model{Path: "testdata/counter.pml", Mutations: []string{"NO_LOCK"}})
}
