package ringbuffer

import (
	"time"

	"github.com/seed4d941b13/uidgen/internal/ring"
)

// The errors of a Ring. A bad Config is uidgen.ErrConfig.
var (
	// ErrEmpty, "ring is empty": Take found the ring empty and its
	// TakePolicy gave up, or the producer sealed the ring and it has
	// drained.
	ErrEmpty = ring.ErrEmpty

	// ErrOrder, "run out of order": Put was given a run that does not
	// start above the last value it placed.
	ErrOrder = ring.ErrOrder
)

// Run is what a producer puts: N values from First, Step apart (First,
// First+Step, ..., First+(N-1)*Step). A Step below 1 counts as 1.
type Run struct {
	First int64
	Step  int64
	N     int
}

// Config says how to build a Ring.
type Config struct {
	// Size is the most values the ring holds, a power of two from 1 to
	// 2^24. Required. The ring holds at most Size/16 runs, and
	// at most 64 (one, below 16), so runs shorter than 16 values, or than
	// Size/64, fill it before their values do.
	Size int

	// PaddingFactor is Baidu's paddingFactor: a take that leaves fewer than
	// PaddingFactor percent of Size waiting wakes the producer. It must be
	// above 0 and below 100; zero means 50.
	PaddingFactor int

	// RejectedTake decides what Take does on an empty ring. Nil means
	// Wait(time.Second): wait for the producer, and fail once it has put
	// nothing for a second.
	RejectedTake TakePolicy
}

// TakePolicy is Baidu's RejectedTakeBufferHandler. Take calls it each time it
// finds the ring empty, after waking the producer, with stalled: how long,
// while this Take has waited, the producer has put nothing. Returning nil
// makes Take look again; returning an error makes Take fail with it. It must
// not return nil forever while the ring stays empty, or Take never returns.
type TakePolicy func(stalled time.Duration) error

// Fail is Baidu's default take policy: an empty ring is an error at once,
// wrapping ErrEmpty.
func Fail(stalled time.Duration) error { return ring.Fail(stalled) }

// Wait returns a take policy that yields the processor between looks at the
// ring, then sleeps between them once the producer has been still for 50 µs,
// and fails with an error wrapping ErrEmpty once the producer has put
// nothing for limit. A take that finds the ring empty because other takes got
// there first keeps waiting while the producer keeps putting.
func Wait(limit time.Duration) TakePolicy { return TakePolicy(ring.Wait(limit)) }

// Ring is a ring of runs of int64 values with one producer and many
// consumers. It is safe for concurrent use by any number of goroutines
// calling Take, TakeN, TakeAll and Stats and Seal, and one goroutine at a
// time calling Put, Free, Rearm, Pause and DropBelow. A Ring must not be
// copied.
//
// It is the module's internal ring under this package's name: the cached
// generator and segment take from that ring directly, so that Go inlines a
// take's common case into their NextID, and this package's methods are
// that ring's. Nothing else about the type changes.
type Ring ring.Ring

// in returns the internal ring r is.
func (r *Ring) in() *ring.Ring { return (*ring.Ring)(r) }

// New returns an empty Ring built from cfg. It fails with an error
// wrapping uidgen.ErrConfig, naming the field, the value and the limit, when
// Size is not a power of two from 1 to 2^24 or PaddingFactor is outside
// (0, 100).
func New(cfg Config) (*Ring, error) {
	r, err := ring.New(ring.Config{Size: cfg.Size, PaddingFactor: cfg.PaddingFactor, RejectedTake: ring.TakePolicy(cfg.RejectedTake)})
	return (*Ring)(r), err
}

// Put places the longest prefix of run that fits, as one run, and returns
// how many values it placed; the rest stay the caller's. A producer that
// asks Free first and puts no more places them all. A value that a take
// has passed over counts as room at once. Values below the bound of the
// last DropBelow count as placed, and are dropped at once (Stats.Stale).
// Values past math.MaxInt64 do not fit: Put places those before them.
// Put never waits for a consumer.
//
// Runs must increase: Put places nothing of a run whose First is not
// above the last value it placed, and returns an error wrapping ErrOrder
// that names both, since takes hand values out in the order put.
//
// Only one goroutine at a time may call Put: the ring's producer.
func (r *Ring) Put(v Run) (int, error) { return r.in().Put(ring.Run(v)) }

// Free returns how many values a Put can place now: Size less the values
// waiting to be taken, or none while the slot the next run goes in holds
// a run that takes have not reached (Room).
func (r *Ring) Free() int { return r.in().Free() }

// Wakeups returns the channel on which consumers ask the producer to refill:
// a take that leaves fewer than the threshold waiting, or finds the ring
// empty, sends on it unless a wake-up is already pending.
func (r *Ring) Wakeups() <-chan struct{} { return r.in().Wakeups() }

// Rearm ends the pending wake-up, so that the next take below the threshold
// asks again. The producer calls it after receiving from Wakeups and before
// it reads Free, so no request made after its look at the ring is lost.
func (r *Ring) Rearm() { r.in().Rearm() }

// Pause tells consumers that the producer will put nothing before until, or
// with a zero until, not until something else than time changes, and why.
// A take waiting on the empty ring counts the producer as stalled only from
// until on, so a pause the producer announces does not exhaust a Wait
// policy, and a take that gives up wraps why in its error. The next Put that
// places a value ends the pause.
//
// Only the producer calls Pause.
func (r *Ring) Pause(until time.Time, why error) { r.in().Pause(until, why) }

// Seal tells consumers that the producer will put no more: once the ring has
// drained, Take and TakeN return an error wrapping both ErrEmpty and err at
// once, without consulting the RejectedTake policy. The first Seal wins.
func (r *Ring) Seal(err error) { r.in().Seal(err) }

// Take returns the next value. On an empty ring it wakes the producer and
// asks the RejectedTake policy, which either lets it look again or fails it;
// see TakePolicy. A value is returned by at most one Take or TakeN.
func (r *Ring) Take() (int64, error) { return r.in().Take() }

// TakeN fills a prefix of dst with the next values, taking each run's
// share with one atomic add, and returns how many it took: at least one
// unless dst is empty or err is not nil. It takes no more than are
// waiting, and treats an empty ring as Take does. Only dst[:n] is written.
func (r *Ring) TakeN(dst []int64) (int, error) { return r.in().TakeN(dst) }

// TakeAll fills dst with the next values, in increasing ring order, in as
// few TakeN calls as the ring allows, and returns len(dst). On an error it
// returns how many it took and the error, and zeroes dst past them.
func (r *Ring) TakeAll(dst []int64) (int, error) { return r.in().TakeAll(dst) }

// DropBelow makes the values below lowest stale: it drops those waiting,
// and Put drops those of runs put later (counted in Stats.Stale), so no take
// that begins after DropBelow returns gets one. It is how the cached
// generator throws away IDs whose second has fallen too far behind the
// clock. The values must be put in increasing order, so that the stale ones
// are always at the head of the ring. A bound below the last one replaces
// it. DropBelow does not wake the producer: the producer that calls it
// refills as it sees fit.
//
// Only the producer calls DropBelow.
func (r *Ring) DropBelow(lowest int64) { r.in().DropBelow(lowest) }

// Stats is a snapshot of a Ring's counters.
type Stats struct {
	Size        int64 // values the ring holds at most
	Available   int64 // values waiting to be taken
	Taken       int64 // values handed out by takes
	TakesWaited int64 // takes that found the ring empty, waited and succeeded
	TakesFailed int64 // takes that returned an error
	Stale       int64 // values dropped as below DropBelow's bound, never handed out
}

// Stats returns a snapshot of r's counters. The fields are read one by one
// while the ring runs, so a busy ring's snapshot is only approximately of
// one instant; Available is kept within [0, Size].
func (r *Ring) Stats() Stats { return Stats(r.in().Stats()) }
