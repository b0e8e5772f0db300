package ringbuffer

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/defaults"
)

// maxSize is the largest ring New accepts: 2^24 values.
const maxSize = defaults.RingMaxSize

// ErrEmpty: Take found the ring empty and its TakePolicy gave up, or the
// producer sealed the ring and it has drained. A bad Config is
// uidgen.ErrConfig.
var ErrEmpty = errors.New("ring is empty")

// lineSize is the cache line size of the target, as x/sys/cpu pads it.
const lineSize = unsafe.Sizeof(cpu.CacheLinePad{})

// Run is what a producer puts: N values from First, Step apart (First,
// First+Step, ..., First+(N-1)*Step). A Step below 1 counts as 1.
type Run struct {
	First int64
	Step  int64
	N     int
}

// maxRuns is the most runs a ring holds at once: its slots.
const maxRuns = 64

// run is one Run in the ring. Put makes a new one for every run and
// publishes it by storing a pointer to it in a slot; after that only next
// changes. A take that read the pointer keeps reading the run it points
// to, however long it is delayed and whatever the slot holds by then: the
// producer never rewrites a run, it replaces it, and the garbage collector
// frees it once no take holds it.
type run struct {
	// next is the offset of the next value to take: a take moves it on
	// with an atomic add, and owns the offsets the add passed over; a
	// drop moves it with a compare-and-swap. Offsets from n on are no
	// values: an add past them takes nothing. The only field takes write,
	// it has a line to itself, so that the others stay in every taker's
	// cache while the takes' adds pass this line from core to core.
	next atomic.Int64
	_    [lineSize - 8]byte

	seq    int64 // the run's number: 0 for the first put, then 1, 2, ...
	first  int64
	step   int64
	n      int64
	before int64 // the values put before this run, in all
	_      [lineSize - 40]byte
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

// Ring is a ring of runs of int64 values with one producer and many
// consumers. It is safe for concurrent use by any number of goroutines
// calling Take, TakeN, TakeAll and Stats and Seal, and one goroutine at a
// time calling Put, Free, Rearm, Pause and DropBelow. A Ring must not be
// copied.
type Ring struct {
	_ cpu.CacheLinePad

	// Set by New, then only read but for the slots, each written by the
	// producer once a run.
	slots        []atomic.Pointer[run] // run seq is in slot seq & runMask
	runMask      int64                 // len(slots) - 1
	size         int64
	threshold    int64 // wake the producer when fewer than this are waiting
	wakeMask     int64 // Take looks at the threshold at offsets where off&wakeMask is 0
	rejectedTake TakePolicy
	wakeups      chan struct{} // capacity 1

	// lowest is written by the producer's DropBelow, about once a second, and
	// read by every take: it shares the line of the fields above, which
	// every take reads too. Values below it are stale.
	lowest atomic.Int64

	_ cpu.CacheLinePad

	// cur is the run takes take from. A take moves it on to the next run,
	// with a compare-and-swap from the run it read, once it has taken the
	// run's last value or finds them all passed over. Read by the producer for
	// room. Before the first run it is an empty run numbered -1.
	cur atomic.Pointer[run]

	_ cpu.CacheLinePad

	// tail is the number of the last run put, and put the values put in
	// all; written only by the producer, in Put, after it has published
	// the run. Takes read put to know how many values wait.
	tail atomic.Int64
	put  atomic.Int64

	_ cpu.CacheLinePad

	// wakePending is true from the moment a consumer asks the producer to
	// refill until the producer calls Rearm. Only a consumer that turns it
	// from false to true sends on wakeups, so at most one wake-up is ever in
	// flight, and a take that finds it true pays one load.
	wakePending atomic.Bool

	// sealed is set once, by Seal: the error an empty ring now returns.
	sealed atomic.Pointer[error]

	// paused is set by the producer's Pause and cleared by its next Put that
	// places a value: why it puts nothing now, and until when.
	paused atomic.Pointer[pause]

	// Counters for Stats, written on the slow paths only.
	takesWaited atomic.Int64
	takesFailed atomic.Int64
	stale       atomic.Int64

	_ cpu.CacheLinePad
}

// New returns an empty Ring built from cfg. It fails with an error
// wrapping uidgen.ErrConfig, naming the field, the value and the limit, when
// Size is not a power of two from 1 to 2^24 or PaddingFactor is outside
// (0, 100).
func New(cfg Config) (*Ring, error) {
	if cfg.Size < 1 || cfg.Size > maxSize || cfg.Size&(cfg.Size-1) != 0 {
		return nil, fmt.Errorf("ringbuffer: %w: Size %d, want a power of two from 1 to %d", uidgen.ErrConfig, cfg.Size, maxSize)
	}
	factor, err := defaults.PaddingFactor(cfg.PaddingFactor)
	if err != nil {
		return nil, fmt.Errorf("ringbuffer: %w", err)
	}
	size := int64(cfg.Size)
	// A run takes two lines and a pointer where a value took a quarter of
	// a line: a ring holds at most Size/16 runs, so that it needs no more
	// memory than values of their own would.
	runs := min(max(size/16, 1), maxRuns)
	r := &Ring{
		slots:        make([]atomic.Pointer[run], runs),
		runMask:      runs - 1,
		size:         size,
		threshold:    size * int64(factor) / 100,
		wakeMask:     wakeEvery(size*int64(factor)/100) - 1,
		rejectedTake: cfg.RejectedTake,
		wakeups:      make(chan struct{}, 1),
	}
	if r.rejectedTake == nil {
		r.rejectedTake = Wait(defaults.RingWait)
	}
	r.cur.Store(&run{seq: -1})
	r.tail.Store(-1)
	r.lowest.Store(math.MinInt64)
	return r, nil
}

// wakeEvery returns how many values apart Take looks at the threshold: the
// largest power of two up to a sixteenth of it, so that a take crosses it
// by at most that before it wakes the producer, which has the other
// fifteen sixteenths still waiting to refill behind.
func wakeEvery(threshold int64) int64 {
	every := int64(1)
	for every*2 <= threshold/16 {
		every *= 2
	}
	return every
}

// Put places the longest prefix of run that fits, as one run, and returns
// how many values it placed; the rest stay the caller's. A producer that
// asks Free first and puts no more places them all. A value that a take
// has passed over counts as room at once. Put never waits for a consumer.
//
// Only one goroutine at a time may call Put: the ring's producer.
func (r *Ring) Put(v Run) int {
	step := max(v.Step, 1)
	n := int64(min(v.N, r.Free()))
	if v.First > 0 && n > 0 {
		n = min(n, (math.MaxInt64-v.First)/step+1) // no value past MaxInt64
	}
	if n <= 0 {
		return 0
	}
	t := r.tail.Load() // the producer's own field: no one else moves it
	put := r.put.Load()
	// Free found takes on the slot's run or past it (Room). A take that
	// holds that run reads it, not this one, and cur reaches this one
	// through the slot only after that run.
	r.slots[(t+1)&r.runMask].Store(&run{seq: t + 1, first: v.First, step: step, n: n, before: put})
	r.put.Store(put + n)
	r.tail.Store(t + 1)
	if r.paused.Load() != nil {
		r.paused.Store(nil)
	}
	return int(n)
}

// Free returns how many values a Put can place now: Size less the values
// waiting to be taken, or none while the slot the next run goes in holds
// a run that takes have not reached (Room).
func (r *Ring) Free() int {
	// The next run replaces run tail+1-len(slots): free once cur is on
	// it or past it, since a take that reads cur keeps the run it read.
	if r.tail.Load()+1-int64(len(r.slots)) > r.cur.Load().seq {
		return 0
	}
	return int(r.size - (r.put.Load() - r.passed()))
}

// Wakeups returns the channel on which consumers ask the producer to refill:
// a take that leaves fewer than the threshold waiting, or finds the ring
// empty, sends on it unless a wake-up is already pending.
func (r *Ring) Wakeups() <-chan struct{} { return r.wakeups }

// Rearm ends the pending wake-up, so that the next take below the threshold
// asks again. The producer calls it after receiving from Wakeups and before
// it reads Free, so no request made after its look at the ring is lost.
func (r *Ring) Rearm() { r.wakePending.Store(false) }

// wake asks the producer to refill, unless a wake-up is already pending.
func (r *Ring) wake() {
	if r.wakePending.Load() || !r.wakePending.CompareAndSwap(false, true) {
		return
	}
	// Never blocks: the flag lets one sender at a time through, and the
	// channel holds one.
	select {
	case r.wakeups <- struct{}{}:
	default:
	}
	// The producer now waits in this P's run queue, and consumers that
	// take flat out never give the P up: yield it, once per refill, so the
	// producer refills while the ring still has values instead of after it
	// runs dry, when every take would wait for it.
	runtime.Gosched()
}

// pauseStep is the longest a take sleeps at a time through a pause.
const pauseStep = time.Millisecond

// pause is why the producer puts nothing now, and until when.
type pause struct {
	until time.Time // zero: until further notice
	why   error
}

// Pause tells consumers that the producer will put nothing before until, or
// with a zero until, not until something else than time changes, and why.
// A take waiting on the empty ring counts the producer as stalled only from
// until on, so a pause the producer announces does not exhaust a Wait
// policy, and a take that gives up wraps why in its error. The next Put that
// places a value ends the pause.
//
// Only the producer calls Pause.
func (r *Ring) Pause(until time.Time, why error) { r.paused.Store(&pause{until, why}) }

// Seal tells consumers that the producer will put no more: once the ring has
// drained, Take and TakeN return an error wrapping both ErrEmpty and err at
// once, without consulting the RejectedTake policy. The first Seal wins.
func (r *Ring) Seal(err error) { r.sealed.CompareAndSwap(nil, &err) }

// Take returns the next value. On an empty ring it wakes the producer and
// asks the RejectedTake policy, which either lets it look again or fails it;
// see TakePolicy. A value is returned by at most one Take or TakeN.
func (r *Ring) Take() (int64, error) {
	// The common case, spelled out so that it costs no second call: one
	// add on the only line a take writes takes the offset it passed over,
	// whose value is fresh and neither its run's last nor one where the
	// take looks at the threshold. takeOffset does the rest.
	d := r.cur.Load()
	off := d.next.Add(1) - 1
	if v := d.first + off*d.step; off < d.n-1 && off&r.wakeMask != 0 && v >= r.lowest.Load() {
		return v, nil
	}
	return r.takeOffset(d, off)
}

// takeOffset is Take past its add, which took offset off of run d.
func (r *Ring) takeOffset(d *run, off int64) (int64, error) {
	if off < d.n {
		if off == d.n-1 {
			r.advance(d)
		}
		if v := d.first + off*d.step; v >= r.lowest.Load() {
			if r.put.Load()-(d.before+off+1) < r.threshold {
				r.wake()
			}
			return v, nil
		}
		r.stale.Add(1) // taken, and dropped: below lowest
	}
	var dst [1]int64
	if n := r.takeRun(dst[:]); n == 0 {
		if _, err := r.takeWaiting(dst[:]); err != nil {
			return 0, err
		}
	}
	return dst[0], nil
}

// TakeN fills a prefix of dst with the next values, taking each run's
// share with one atomic add, and returns how many it took: at least one
// unless dst is empty or err is not nil. It takes no more than are
// waiting, and treats an empty ring as Take does. Only dst[:n] is written.
func (r *Ring) TakeN(dst []int64) (int, error) {
	if len(dst) == 0 {
		return 0, nil
	}
	n := r.takeRun(dst)
	if n == 0 {
		var err error
		if n, err = r.takeWaiting(dst); err != nil {
			return 0, err
		}
	}
	for n < int64(len(dst)) {
		k := r.takeRun(dst[n:])
		if k == 0 {
			break
		}
		n += k
	}
	return int(n), nil
}

// TakeAll fills dst with the next values, in increasing ring order, in as
// few TakeN calls as the ring allows, and returns len(dst). On an error it
// returns how many it took and the error, and zeroes dst past them.
func (r *Ring) TakeAll(dst []int64) (int, error) {
	filled := 0
	for filled < len(dst) {
		n, err := r.TakeN(dst[filled:])
		filled += n
		if err != nil {
			clear(dst[filled:])
			return filled, err
		}
	}
	return filled, nil
}

// headRun returns the run takes take from, and its next as read, once
// one has values left: it moves cur past runs used up. It returns nil when
// the ring is empty.
func (r *Ring) headRun() (d *run, c int64) {
	for {
		d = r.cur.Load()
		if c = d.next.Load(); c < d.n {
			return d, c
		}
		if !r.advance(d) {
			return nil, 0
		}
	}
}

// advance moves cur from d, whose values are all passed over, to the run after
// it, unless another take has already, and reports whether cur is past d:
// false when the next run is not yet put.
func (r *Ring) advance(d *run) bool {
	next := r.slots[(d.seq+1)&r.runMask].Load()
	if next == nil || next.seq != d.seq+1 {
		// The slot still holds the run a lap before (Room keeps the
		// producer from putting the run a lap after).
		return r.cur.Load() != d
	}
	r.cur.CompareAndSwap(d, next)
	return true
}

// takeRun takes up to len(dst) waiting values of the head run into dst and
// returns how many; n == 0 means the ring was empty. One atomic add takes
// them: the offsets it passed over are the caller's, and no other take
// passes over them. Some may lie past the run's end, which another take
// reached first: the loop then looks again, at the next run.
func (r *Ring) takeRun(dst []int64) (n int64) {
	for {
		d, c := r.headRun()
		if d == nil {
			return 0
		}
		if lowest := r.lowest.Load(); d.first+c*d.step < lowest {
			r.dropStale(lowest)
			continue
		}
		want := min(int64(len(dst)), d.n-c)
		off := d.next.Add(want) - want
		n = min(want, d.n-off)
		if n <= 0 {
			continue
		}
		if off+n == d.n {
			r.advance(d)
		}
		for i := range n {
			dst[i] = d.first + (off+i)*d.step
		}
		if r.put.Load()-(d.before+off+n) < r.threshold {
			r.wake()
		}
		return n
	}
}

// DropBelow makes the values below lowest stale: no take returns one, and the
// first take to meet them, or DropBelow itself, passes over them all and drops
// them (counted in Stats.Stale). It is how the cached generator throws away
// IDs whose second has fallen too far behind the clock. The values must be
// put in increasing order, so that the stale ones are always at the head of
// the ring.
//
// Only the producer calls DropBelow.
func (r *Ring) DropBelow(lowest int64) {
	r.lowest.Store(lowest)
	r.dropStale(lowest)
}

// dropStale passes over the values below lowest at the head of the ring, which
// increasing order keeps together, and drops them: in each run, from the
// next read to the first value at or above lowest, with one
// compare-and-swap, so that a value is taken once or dropped once, never
// both. A run it drops to the end it moves head past, and it goes on with
// the next. The loop is lock-free: a CAS fails only because another take
// succeeded.
func (r *Ring) dropStale(lowest int64) {
	for {
		d, c := r.headRun()
		if d == nil || d.first+c*d.step >= lowest {
			return // the ring is empty, or its head fresh
		}
		// The first fresh offset: lowest-first over step, rounded up, in
		// unsigned arithmetic since lowest-first may pass MaxInt64.
		dist := uint64(lowest) - uint64(d.first)
		fresh := d.n
		if q := dist / uint64(d.step); q < uint64(d.n) {
			fresh = int64(q)
			if dist%uint64(d.step) != 0 {
				fresh++
			}
		}
		if d.next.CompareAndSwap(c, fresh) {
			r.stale.Add(fresh - c)
			if fresh < d.n {
				if r.put.Load()-(d.before+fresh) < r.threshold {
					r.wake()
				}
				return
			}
			r.advance(d)
		}
	}
}

// takeWaiting is takeRun on an empty ring: it wakes the producer and loops
// on the RejectedTake policy until a take succeeds, the policy gives up, or the
// ring is sealed and still empty.
//
// The policy is told how long the producer has put nothing, not how long
// this take has waited: with more consumers than processors, a take can find
// the ring empty for a long while only because others, scheduled first, take
// each refill. That is contention, not a producer that has stopped.
func (r *Ring) takeWaiting(dst []int64) (n int64, err error) {
	since, tail := time.Now(), r.tail.Load()
	for {
		if t := r.tail.Load(); t != tail {
			since, tail = time.Now(), t
		}
		if sealed := r.sealed.Load(); sealed != nil {
			// Look once more: values put before the Seal must still drain.
			if n = r.takeRun(dst); n > 0 {
				break
			}
			r.takesFailed.Add(1)
			return 0, fmt.Errorf("%w: %w", ErrEmpty, *sealed)
		}
		h := r.paused.Load()
		if h != nil && h.until.After(since) {
			since = h.until // a pause announced is not a stall
		}
		if wait := time.Until(since); wait > 0 {
			// The producer said when it puts again, and wakes itself then:
			// sleep, in steps short enough to see a Put that comes sooner.
			time.Sleep(min(wait, pauseStep))
			if n = r.takeRun(dst); n > 0 {
				break
			}
			continue
		}
		r.wake()
		if err := r.rejectedTake(time.Since(since)); err != nil {
			r.takesFailed.Add(1)
			if h != nil && h.why != nil {
				err = fmt.Errorf("%w: %w", err, h.why)
			}
			return 0, err
		}
		if n = r.takeRun(dst); n > 0 {
			break
		}
	}
	r.takesWaited.Add(1)
	return n, nil
}

// Stats is a snapshot of a Ring's counters.
type Stats struct {
	Size        int64 // values the ring holds at most
	Available   int64 // values waiting to be taken
	Taken       int64 // values handed out by takes
	TakesWaited int64 // takes that found the ring empty, waited and succeeded
	TakesFailed int64 // takes that returned an error
	Stale       int64 // values dropped as stale (DropBelow), never handed out
}

// passed returns how many values takes have passed over, taken or
// dropped: those before the run cur points to, and that run's so far.
func (r *Ring) passed() int64 {
	d := r.cur.Load()
	return d.before + min(d.next.Load(), d.n)
}

// Stats returns a snapshot of r's counters. The fields are read one by one
// while the ring runs, so a busy ring's snapshot is only approximately of
// one instant; Available is kept within [0, Size].
func (r *Ring) Stats() Stats {
	passed := r.passed()
	put := r.put.Load()
	stale := r.stale.Load()
	return Stats{
		Size:        r.size,
		Available:   min(max(put-passed, 0), r.size),
		Taken:       max(passed-stale, 0),
		TakesWaited: r.takesWaited.Load(),
		TakesFailed: r.takesFailed.Load(),
		Stale:       stale,
	}
}
