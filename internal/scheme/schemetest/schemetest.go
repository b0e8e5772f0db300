// Package schemetest holds the test switches of package scheme, apart from
// it so that no program links the testing package through a generator.
package schemetest

import (
	"testing"

	"github.com/seed4d941b13/uidgen/internal/scheme"
)

// WholeSeconds makes every second start at its first sequence while t runs,
// for tests that count a second's IDs exactly. Such tests must not run in
// parallel with others.
func WholeSeconds(t testing.TB) {
	old := scheme.Random
	scheme.Random = func(int64) int64 { return 0 }
	t.Cleanup(func() { scheme.Random = old })
}
