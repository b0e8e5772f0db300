package defaultgen

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/worker"
)

// The default layout: 1 sign + 30 time + 20 worker + 13 sequence bits from
// DefaultEpoch. 2^30 seconds is 34 years (to January 2059); 2^20-1 worker IDs
// is a fleet of 1,000 processes each restarting every ten days for 28 years;
// 2^13 = 8,192 IDs per second per worker. The README shows the arithmetic.
const (
	DefaultTimeBits   = 30
	DefaultWorkerBits = 20
	DefaultSeqBits    = 13
)

// DefaultEpoch is the epoch of the default layout: 2025-01-01 00:00:00 UTC.
var DefaultEpoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// dateLayout is how errors show instants: to the second, with the zone.
const dateLayout = "2006-01-02 15:04:05 MST"

var (
	// ErrNoAssigner: Config.Assigner is nil.
	ErrNoAssigner = errors.New("defaultgen: no worker ID assigner")
	// ErrEpochInFuture: the epoch is later than the clock's now.
	ErrEpochInFuture = errors.New("defaultgen: epoch is in the future")
	// ErrTimeExhausted: the seconds since the epoch no longer fit the time
	// bits. The layout or the epoch must change; IDs never wrap.
	ErrTimeExhausted = errors.New("defaultgen: time bits exhausted")
	// ErrWorkerIDRange: the assigner handed out a worker ID outside
	// [0, 2^WorkerBits-1].
	ErrWorkerIDRange = errors.New("defaultgen: worker ID out of range")
	// ErrClockBackwards: the clock stepped back further than a generator can
	// bridge without repeating an ID (see MaxClockWait).
	ErrClockBackwards = errors.New("defaultgen: clock moved backwards")
)

// Clock is the generator's source of time. Tests inject one that they move by
// hand; Sleep lets a generator wait for the next second without the test
// waiting too.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// Config says how to build a generator. Its zero value, but for Assigner,
// means the defaults.
type Config struct {
	// TimeBits, WorkerBits and SeqBits are the widths of the three fields of
	// a UID; with the sign bit they must add up to 64. All three zero means
	// DefaultTimeBits, DefaultWorkerBits and DefaultSeqBits; otherwise all
	// three are taken as given.
	TimeBits, WorkerBits, SeqBits int

	// Epoch is the instant that delta seconds count from, truncated to the
	// second. Zero means DefaultEpoch. It must not be in the future, and the
	// seconds since it must still fit the time bits.
	Epoch time.Time

	// Assigner gives this process its worker ID, once, in New. Required:
	// worker.Static(id) for a process that owns its ID space,
	// worker.NewDisposable(db) for a fleet.
	Assigner worker.Assigner

	// Clock is the source of time. Nil means the system clock anchored to
	// Go's monotonic clock: it never runs backwards while the process lives,
	// whatever is done to the wall clock (see SystemClock).
	Clock Clock
}

// Scheme is a validated Config with its worker ID assigned: everything needed
// to make IDs and to read them. Both generators are built on one.
type Scheme struct {
	alloc    *bits.Allocator
	epoch    time.Time // whole second
	epochSec int64     // epoch as Unix seconds
	workerID int64
	clock    Clock
}

// Scheme validates c, asks the Assigner for the worker ID under ctx, and
// returns the resulting Scheme. Errors, each naming the values at fault:
//   - a bad layout (wraps bits.ErrLayout);
//   - a nil Assigner (ErrNoAssigner);
//   - an epoch after now (ErrEpochInFuture);
//   - an epoch whose time bits ran out before now (ErrTimeExhausted);
//   - the Assigner's own error, wrapped;
//   - a worker ID above 2^WorkerBits-1 or below 0 (ErrWorkerIDRange).
func (c Config) Scheme(ctx context.Context) (*Scheme, error) {
	alloc, err := c.Layout()
	if err != nil {
		return nil, err
	}
	if c.Assigner == nil {
		return nil, fmt.Errorf("%w: set Config.Assigner (worker.Static(id) for one process, worker.NewDisposable(db) for a fleet)", ErrNoAssigner)
	}
	clock := c.Clock
	if clock == nil {
		clock = SystemClock()
	}
	epoch := c.Epoch
	if epoch.IsZero() {
		epoch = DefaultEpoch
	}
	epoch = epoch.Truncate(time.Second)
	s := &Scheme{alloc: alloc, epoch: epoch, epochSec: epoch.Unix(), clock: clock}

	now := clock.Now()
	if now.Before(epoch) {
		return nil, fmt.Errorf("%w: epoch %s is after now %s",
			ErrEpochInFuture, epoch.Format(dateLayout), now.Format(dateLayout))
	}
	if _, err := s.Second(); err != nil {
		return nil, err
	}

	id, err := c.Assigner.AssignWorkerID(ctx)
	if err != nil {
		return nil, fmt.Errorf("defaultgen: assign worker ID: %w", err)
	}
	if id < 0 || id > alloc.MaxWorkerID() {
		return nil, fmt.Errorf("%w: worker ID %d is over the maximum %d of %d worker bits; the fleet has used up its worker IDs: widen WorkerBits or start a new WORKER_NODE table with a new epoch",
			ErrWorkerIDRange, id, alloc.MaxWorkerID(), alloc.WorkerBits())
	}
	s.workerID = id
	return s, nil
}

// Layout returns the bit layout c describes, the defaults for three zero
// widths, or an error wrapping bits.ErrLayout. It assigns nothing, so a
// generator can check what depends on the layout before it spends a worker
// ID.
func (c Config) Layout() (*bits.Allocator, error) {
	if c.TimeBits == 0 && c.WorkerBits == 0 && c.SeqBits == 0 {
		return bits.New(DefaultTimeBits, DefaultWorkerBits, DefaultSeqBits)
	}
	return bits.New(c.TimeBits, c.WorkerBits, c.SeqBits)
}

// Allocator returns the scheme's bit layout.
func (s *Scheme) Allocator() *bits.Allocator { return s.alloc }

// WorkerID returns the worker ID the Assigner handed out.
func (s *Scheme) WorkerID() int64 { return s.workerID }

// Epoch returns the epoch, truncated to the second.
func (s *Scheme) Epoch() time.Time { return s.epoch }

// Clock returns the scheme's clock.
func (s *Scheme) Clock() Clock { return s.clock }

// Second returns the clock's current second as delta seconds since the
// epoch, or an error wrapping ErrTimeExhausted once that no longer fits the
// time bits.
func (s *Scheme) Second() (int64, error) {
	delta := s.clock.Now().Unix() - s.epochSec
	if err := s.CheckDelta(delta); err != nil {
		return 0, err
	}
	return delta, nil
}

// CheckDelta returns an error wrapping ErrTimeExhausted if delta seconds
// since the epoch do not fit the time bits.
func (s *Scheme) CheckDelta(delta int64) error {
	if max := s.alloc.MaxDeltaSeconds(); delta > max {
		return fmt.Errorf("%w: %d seconds since epoch %s is over the maximum %d of %d time bits, which ran out at %s",
			ErrTimeExhausted, delta, s.epoch.Format(dateLayout), max, s.alloc.TimeBits(),
			s.TimeOf(max+1).Format(dateLayout))
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

// TimeOf returns the instant that delta seconds since the epoch stand for,
// in the local time zone.
func (s *Scheme) TimeOf(delta int64) time.Time {
	return time.Unix(s.epochSec+delta, 0)
}

// SystemClock returns the system clock anchored to Go's monotonic clock: Now
// is the wall time at the call to SystemClock plus the monotonic time elapsed
// since, so a wall clock stepped back (by NTP or by hand) never makes a
// generator's "now" go back. Now lags the wall clock by whatever it was
// stepped forward, and by time the machine spent suspended.
func SystemClock() Clock { return systemClock{start: time.Now()} }

type systemClock struct{ start time.Time }

func (c systemClock) Now() time.Time        { return c.start.Add(time.Since(c.start)) }
func (c systemClock) Sleep(d time.Duration) { time.Sleep(d) }
