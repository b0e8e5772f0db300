package defaultgen

import (
	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/scheme"
)

// Config says how to build a Generator. Its zero value, but for Assigner or
// Leaser, means the defaults.
type Config struct {
	// Layout is the IDs' layout. Zero means uidgen.DefaultLayout(),
	// 1+30+20+13 bits in seconds from 2025-01-01. Set it to a peer's layout
	// by name (uidgen.NamedLayout("twitter")) or to any uidgen.NewLayout:
	// other widths, gene bits for NextIDFor, a tick shorter than a second,
	// the sequence above the worker. Its epoch must not be in the future,
	// and the ticks since it must still fit its time bits. Every other
	// field keeps its meaning in the layout's ticks: a tick's sequence, a
	// tick borrowed ahead, a lease reserving the seconds its ticks fall in.
	Layout uidgen.Layout

	// After, where above 0, is an ID of an older generator that every ID
	// this one makes must be above, whatever the clock says: an older
	// fleet may have borrowed time ahead of the clock (Baidu's, Leaf's and
	// yitter's can). The first ID is in the tick after After's, which must
	// lie within the layout's time bits. A tick more than 5 seconds ahead
	// of the clock (the longest NextID waits for the clock) fails New with
	// uidgen.ErrClockBackwards naming After.
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
