package defaultgen

import (
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/scheme"
)

// Config says how to build a Generator. Its zero value, but for Assigner or
// Leaser, means the defaults.
type Config struct {
	// TimeBits, WorkerBits and SeqBits are the widths of the three fields of
	// a UID; with the sign bit they add up to 64 in Baidu's layouts, and
	// may add up to less (the bits above stay zero, so every ID is below
	// 2^(TimeBits+WorkerBits+SeqBits+GeneBits)). All three zero means
	// uidgen.DefaultTimeBits, DefaultWorkerBits and DefaultSeqBits;
	// otherwise all three are taken as given.
	TimeBits, WorkerBits, SeqBits int

	// GeneBits is the width of the gene field below the sequence: the low
	// bits that NextIDFor copies from a shard key, so that an ID lands on
	// its key's shard of id % 2^GeneBits. Zero (the default) is Baidu's
	// layout; with gene bits the widths may add up to less than 64 but not
	// more, and all four are taken as given.
	GeneBits int

	// Epoch is the instant that delta seconds count from, truncated to the
	// second. Zero means uidgen.DefaultEpoch. It must not be in the future,
	// and the seconds since it must still fit the time bits. Layout, where
	// set, brings its own.
	Epoch time.Time

	// Layout, where set, is the IDs' layout in place of the widths,
	// GeneBits and Epoch, which must then be zero: a peer's layout by name
	// (uidgen.NamedLayout("twitter")) or any uidgen.NewLayout, whose
	// tick may be shorter than a second and whose sequence may sit above
	// the worker. Every other field keeps its meaning in the layout's
	// ticks: a tick's sequence, a tick borrowed ahead, a lease reserving
	// the seconds its ticks fall in.
	Layout uidgen.Layout

	// After, where above 0, is an ID of an older generator that every ID
	// this one makes must be above, whatever the clock says: an older
	// fleet may have borrowed time ahead of the clock (Baidu's, Leaf's and
	// yitter's can). The first ID is in the tick after After's, which must
	// lie within the layout's time bits. A tick more than MaxClockWait ahead of
	// the clock fails New with uidgen.ErrClockBackwards naming After.
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
		TimeBits: c.TimeBits, WorkerBits: c.WorkerBits, SeqBits: c.SeqBits, GeneBits: c.GeneBits,
		Epoch: c.Epoch, Layout: c.Layout, After: c.After,
		Assigner: c.Assigner, Leaser: c.Leaser, Clock: c.Clock,
		// As far ahead as NextID waits for a clock set back.
		MaxAhead: MaxClockWait,
	}
}
