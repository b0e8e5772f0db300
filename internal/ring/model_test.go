package ring

import (
	"testing"

	"github.com/seed4d941b13/uidgen/internal/spintest"
)

// TestModel checks the Promela model of the ring with SPIN: ring.pml with
// two takers racing DropBelow and Seal, ring_drain.pml with a take racing
// Drain. Each mutation takes out one step of the proof in docs/design.md,
// as ring.pml's header says, and SPIN must find a counterexample to it.
// The verifiers are built with -O0: fourteen builds at -O2 take longer
// than all the searches.
func TestModel(t *testing.T) {
	for _, m := range []spintest.Model{
		{Path: "ring.pml", Mutations: []string{
			"ADD_PAST_END", "DROP_PUBLISH_FIRST", "DROP_STORE", "PUT_KEEPS_STALE",
			"PUBLISH_BEFORE_FIELDS", "REWRITE_IN_PLACE", "SEAL_NO_LOOK", "NO_SEAL_CHECK",
		}, CFlags: []string{"-O0"}},
		{Path: "ring_drain.pml", Mutations: []string{
			"NO_ROOM", "ADVANCE_EARLY", "DRAIN_STORE", "DRAIN_UPWARD",
		}, CFlags: []string{"-O0"}},
	} {
		t.Run(m.Path, func(t *testing.T) { spintest.Check(t, m) })
	}
}
