package defaultgen

import (
	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/scheme"
)

// Config says how to build a Generator. Its zero value, but for Assigner or
// Leaser, means the defaults.
type Config struct {
	// Layout is the IDs' layout. Zero means uidgen.DefaultLayout(),
	// 1+30+20+13 bits in seconds from 2025-01-01; uidgen.NamedLayout gives a
	// peer's. Its epoch must not be in the future, nor its time bits spent.
	// Every other field keeps its meaning in the layout's ticks.
	Layout uidgen.Layout

	// After, where above 0, is an ID of an older generator that every ID
	// this one makes is above, whatever the clock says: an older fleet may
	// have borrowed time ahead. The first ID is in the tick after After's;
	// one more than 5 seconds ahead (the longest NextID waits for the clock)
	// fails New with uidgen.ErrClockBackwards naming After.
	After int64

	// Assigner gives this process its worker ID, once, in New:
	// uidgen.Static(id) for a process that owns its ID space, a
	// worker.NewDisposable for a fleet. Exactly one of Assigner and Leaser
	// is required.
	Assigner uidgen.Assigner

	// Leaser lends this process a worker ID that comes back when Close
	// gives it back, with the seconds reserved for it (a worker.NewLeased):
	// New takes the lease, and the generator uses no second the lease has
	// not reserved. Set it in place of Assigner.
	Leaser uidgen.Leaser

	// Clock is the source of time. Nil means uidgen.SystemClock(): the
	// system clock anchored to Go's monotonic clock, which never runs
	// backwards while the process lives, whatever is done to the wall clock.
	Clock uidgen.Clock
}

func (c Config) params() scheme.Params {
	return scheme.Params{
		Layout: c.Layout, After: c.After,
		Assigner: c.Assigner, Leaser: c.Leaser, Clock: c.Clock,
		// As far ahead as NextID waits for a clock set back.
		MaxAhead: maxClockWait,
	}
}
