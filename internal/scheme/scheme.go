// Package scheme is what both generators share between their flat Config
// and their first ID: the defaults, the checks, the worker ID, and the clock
// arithmetic of delta seconds. Nothing here does I/O but Assign.
package scheme

import (
	"context"
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
)

// dateLayout is how errors show instants: to the second, with the zone.
const dateLayout = "2006-01-02 15:04:05 MST"

// Params are the fields both generators' Configs share, as the user set
// them: zero means the default.
type Params struct {
	TimeBits, WorkerBits, SeqBits int
	Epoch                         time.Time
	Assigner                      uidgen.Assigner
	Clock                         uidgen.Clock
}

// Scheme is a checked layout, clock and assigner, and once Assign has run,
// the worker ID: everything needed to make IDs.
type Scheme struct {
	layout   uidgen.Layout
	alloc    *bits.Allocator
	epochSec int64
	clock    uidgen.Clock
	assigner uidgen.Assigner
	workerID int64
}

// New checks p without I/O and returns the Scheme it describes, with no
// worker ID yet. Its errors carry no package prefix; the generator adds its
// own. It fails on:
//   - a bad layout (wraps bits.ErrLayout);
//   - a nil Assigner (uidgen.ErrNoAssigner);
//   - an epoch after now (uidgen.ErrEpochInFuture);
//   - an epoch whose time bits ran out before now (uidgen.ErrTimeExhausted).
func New(p Params) (*Scheme, error) {
	if p.TimeBits == 0 && p.WorkerBits == 0 && p.SeqBits == 0 {
		p.TimeBits, p.WorkerBits, p.SeqBits = uidgen.DefaultTimeBits, uidgen.DefaultWorkerBits, uidgen.DefaultSeqBits
	}
	if p.Epoch.IsZero() {
		p.Epoch = uidgen.DefaultEpoch
	}
	layout, err := uidgen.NewLayout(p.TimeBits, p.WorkerBits, p.SeqBits, p.Epoch)
	if err != nil {
		return nil, err
	}
	if p.Assigner == nil {
		return nil, fmt.Errorf("%w: set Config.Assigner (uidgen.Static(id) for one process, a worker.NewDisposable for a fleet)", uidgen.ErrNoAssigner)
	}
	if p.Clock == nil {
		p.Clock = uidgen.SystemClock()
	}
	s := &Scheme{
		layout:   layout,
		alloc:    layout.Bits(),
		epochSec: layout.Epoch().Unix(),
		clock:    p.Clock,
		assigner: p.Assigner,
	}
	if now := s.clock.Now(); now.Before(layout.Epoch()) {
		return nil, fmt.Errorf("%w: epoch %s is after now %s",
			uidgen.ErrEpochInFuture, layout.Epoch().Format(dateLayout), now.Format(dateLayout))
	}
	if _, err := s.Second(); err != nil {
		return nil, err
	}
	return s, nil
}

// Assign asks the Assigner for the worker ID under ctx and checks that it
// fits the layout: the one step of building a generator that does I/O. It
// fails with the Assigner's error, wrapped, or uidgen.ErrWorkerIDRange.
func (s *Scheme) Assign(ctx context.Context) error {
	id, err := s.assigner.AssignWorkerID(ctx)
	if err != nil {
		return fmt.Errorf("assign worker ID: %w", err)
	}
	if max := s.alloc.MaxWorkerID(); id < 0 || id > max {
		return fmt.Errorf("%w: worker ID %d is not in [0, %d], the range of %d worker bits; a fleet that has used up its worker IDs needs wider WorkerBits or a new worker table with a new epoch",
			uidgen.ErrWorkerIDRange, id, max, s.alloc.WorkerBits())
	}
	s.workerID = id
	return nil
}

// Layout returns the layout.
func (s *Scheme) Layout() uidgen.Layout { return s.layout }

// Bits returns the layout's bit arithmetic.
func (s *Scheme) Bits() *bits.Allocator { return s.alloc }

// WorkerID returns the worker ID Assign got.
func (s *Scheme) WorkerID() int64 { return s.workerID }

// Clock returns the clock.
func (s *Scheme) Clock() uidgen.Clock { return s.clock }

// Second returns the clock's current second as delta seconds since the
// epoch, or an error wrapping uidgen.ErrTimeExhausted once that no longer
// fits the time bits.
func (s *Scheme) Second() (int64, error) {
	delta := s.Now()
	if err := s.CheckDelta(delta); err != nil {
		return 0, err
	}
	return delta, nil
}

// Now returns the clock's current second as delta seconds since the epoch,
// whether it fits the time bits or not.
func (s *Scheme) Now() int64 { return s.clock.Now().Unix() - s.epochSec }

// CheckDelta returns an error wrapping uidgen.ErrTimeExhausted if delta
// seconds since the epoch do not fit the time bits.
func (s *Scheme) CheckDelta(delta int64) error {
	if max := s.alloc.MaxDeltaSeconds(); delta > max {
		return fmt.Errorf("%w: %d seconds since epoch %s is over the maximum %d of %d time bits, which ran out at %s",
			uidgen.ErrTimeExhausted, delta, s.layout.Epoch().Format(dateLayout), max, s.alloc.TimeBits(),
			s.layout.RunsOut().Format(dateLayout))
	}
	return nil
}

// FirstSequence returns the first sequence a generator may use in delta
// second: 0, except in the epoch's own second for worker 0, where sequence 0
// would make the UID 0, which many stores read as "no ID". That one UID is
// skipped.
func (s *Scheme) FirstSequence(delta int64) int64 {
	if delta == 0 && s.workerID == 0 {
		return 1
	}
	return 0
}

// TimeOf returns the instant that delta seconds since the epoch stand for.
func (s *Scheme) TimeOf(delta int64) time.Time { return time.Unix(s.epochSec+delta, 0) }

// FormatTime formats an instant as errors show it.
func FormatTime(t time.Time) string { return t.Format(dateLayout) }
