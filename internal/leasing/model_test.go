package leasing

import (
	"testing"

	"github.com/seed4d941b13/uidgen/internal/spintest"
)

// TestModel checks lease.pml, the lease protocol of docs/design.md over
// one worker ID, with SPIN: no two holders hand out one second, and each
// step of the proof, taken out, lets two of them do so. With a take that
// ignores expiry (lease_anyexpiry.pml) it still verifies: the store's
// clock and the TTL decide only when a holder may lose its ID.
func TestModel(t *testing.T) {
	spintest.Check(t, spintest.Model{Path: "lease.pml", CFlags: []string{"-O1"}, Mutations: []string{
		"RAISE_BEFORE_ACK", "WRITE_T_ALONE", "NO_OWNER_CHECK", "TAKE_READ_APART",
		"TAKEOVER_AT_RESERVATION", "START_AT_NOW", "RELEASE_DROPS_RESERVATION",
		"RELEASE_BELOW_FIRST", "NEW_ID_TWICE",
	}})
	spintest.Check(t, spintest.Model{Path: "lease_anyexpiry.pml", CFlags: []string{"-O1"}})
}
