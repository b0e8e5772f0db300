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
)

// MaxSize is the largest ring New accepts: 2^24 slots, 256 MiB.
const MaxSize = 1 << 24

// DefaultPaddingFactor is the padding factor of a Config that leaves it zero.
const DefaultPaddingFactor = 50

var (
	// ErrSize: Config.Size is not a power of two in [1, MaxSize].
	ErrSize = errors.New("ring size is not a power of two in range")
	// ErrPaddingFactor: Config.PaddingFactor is outside (0, 100).
	ErrPaddingFactor = errors.New("padding factor out of range")
	// ErrEmpty: Take found the ring empty and its TakePolicy gave up, or the
	// producer sealed the ring and it has drained.
	ErrEmpty = errors.New("ring is empty")
)

// lineSize is the cache line size of the target, as x/sys/cpu pads it.
const lineSize = unsafe.Sizeof(cpu.CacheLinePad{})

// slot holds one value and a word for the producer alone. Slots share cache
// lines, lineSize/16 to a line; a ring's slots are one allocation of a power
// of two of them, at least a line's worth, and Go's allocator places an
// object of a power-of-two size on a boundary of that size (or of a page),
// so the slots start a line and no other object shares their lines.
type slot struct {
	// uid is written only by the producer, with an atomic store, for
	// sequence s once the cursor has reached s-size (the slot's last value
	// was claimed, so read). The producer's tail store publishes it.
	// Consumers read it with an atomic load before they try to claim it;
	// a consumer that loses the claim may read it while the producer
	// rewrites it, which the atomics make safe, and discards what it read.
	uid atomic.Int64

	// touch is written only by the producer, with a plain store, and read
	// by no one. Put stores to one touch a line for a run of slots before
	// it stores their uids: the plain stores fetch the run's lines from the
	// consumers' caches all at once, so each locked uid store finds its
	// line already owned instead of waiting for it alone.
	touch int64
}

// slotsPerLine is how many slots share a cache line.
const slotsPerLine = int64(lineSize / unsafe.Sizeof(slot{}))

// touchRun is how many slots Put touches ahead of their atomic stores.
const touchRun = 256

// Config says how to build a Ring.
type Config struct {
	// Size is the number of slots, a power of two in [1, MaxSize]. Required.
	Size int

	// PaddingFactor is Baidu's paddingFactor: a take that leaves fewer than
	// PaddingFactor percent of Size waiting wakes the producer. It must be in
	// (0, 100); zero means DefaultPaddingFactor.
	PaddingFactor int

	// RejectedTake decides what Take does on an empty ring. Nil means
	// Wait(DefaultWait): wait briefly for the producer, then fail.
	RejectedTake TakePolicy
}

// Ring is a ring of int64 values with one producer and many consumers. It is
// safe for concurrent use by any number of goroutines calling Take, TakeN,
// Stats and Seal, and one goroutine at a time calling Put, Free and Rearm.
// A Ring must not be copied.
type Ring struct {
	_ cpu.CacheLinePad

	// Set by New, then only read.
	slots        []slot
	mask         int64 // Size - 1
	size         int64
	threshold    int64 // wake the producer when fewer than this are waiting
	rejectedTake TakePolicy
	wakeups      chan struct{} // capacity 1

	// lowest is written by the producer's DropBelow, about once a second, and
	// read by every take: it shares the line of the fields above, which
	// every take reads too. Values below it are stale.
	lowest atomic.Int64

	_ cpu.CacheLinePad

	// tail is written only by the producer, in Put, after it has written
	// the values of every slot up to it: the store publishes those values.
	// Read by consumers to bound their claims, and by Stats.
	tail atomic.Int64

	_ cpu.CacheLinePad

	// cursor is moved only by a consumer's CAS from c to c+n, made after the
	// consumer has read tail >= c+n; tail never shrinks, so a successful CAS
	// proves slots c+1..c+n were published, and that no other consumer
	// claimed them. Read by the producer (through the slots' next) and Stats.
	cursor atomic.Int64

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

// New returns an empty Ring built from cfg. It fails, naming the value and
// the limit, when Size is not a power of two in [1, MaxSize] (ErrSize) or
// PaddingFactor is outside (0, 100) (ErrPaddingFactor).
func New(cfg Config) (*Ring, error) {
	if cfg.Size < 1 || cfg.Size > MaxSize || cfg.Size&(cfg.Size-1) != 0 {
		return nil, fmt.Errorf("%w: size %d, want a power of two from 1 to %d", ErrSize, cfg.Size, MaxSize)
	}
	factor := cfg.PaddingFactor
	if factor == 0 {
		factor = DefaultPaddingFactor
	}
	if factor <= 0 || factor >= 100 {
		return nil, fmt.Errorf("%w: padding factor %d, want more than 0 and less than 100", ErrPaddingFactor, factor)
	}
	size := int64(cfg.Size)
	r := &Ring{
		slots:        make([]slot, max(size, slotsPerLine)),
		mask:         size - 1,
		size:         size,
		threshold:    size * int64(factor) / 100,
		rejectedTake: cfg.RejectedTake,
		wakeups:      make(chan struct{}, 1),
	}
	if r.rejectedTake == nil {
		r.rejectedTake = Wait(DefaultWait)
	}
	r.tail.Store(-1)
	r.cursor.Store(-1)
	r.lowest.Store(math.MinInt64)
	return r, nil
}

// Size returns the number of slots.
func (r *Ring) Size() int { return int(r.size) }

// Put places the longest prefix of uids that fits, in order, publishes them
// with a single store of tail, and returns how many it placed; the rest stay
// the caller's. A producer that asks Free first and puts no more places
// them all. A slot that a take has claimed counts as room at once: the take
// read it before its claim. Put never waits for a consumer.
//
// Only one goroutine at a time may call Put: the ring's producer.
func (r *Ring) Put(uids []int64) int {
	t := r.tail.Load() // the producer's own field: no one else moves it
	// Sequence s is puttable once s-size has been claimed, that is once
	// s-size <= cursor: its claimer read it before its CAS moved the
	// cursor past it, and a consumer that reads it later fails its CAS.
	room := r.cursor.Load() + r.size - t
	n := int(max(min(int64(len(uids)), room), 0))
	for i := 0; i < n; i += touchRun {
		first := t + 1 + int64(i)
		end := first + int64(min(n-i, touchRun))
		for s := first; s < end; s = s | (slotsPerLine - 1) + 1 { // a line each
			r.slots[s&r.mask].touch = 0
		}
		for s := first; s < end; s++ {
			r.slots[s&r.mask].uid.Store(uids[s-t-1])
		}
	}
	if n > 0 {
		r.tail.Store(t + int64(n)) // publishes the n values just written
		if r.paused.Load() != nil {
			r.paused.Store(nil)
		}
	}
	return n
}

// Free returns how many values a Put can place now: Size less the values
// waiting to be taken.
func (r *Ring) Free() int {
	return int(r.size - (r.tail.Load() - r.cursor.Load()))
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
	// The common case, one claim well above the threshold, is spelled out
	// here so that it costs no call: claim's loop and wake-up stay out of
	// the way. t-c > threshold >= 0 also proves the ring not empty.
	if c, t := r.cursor.Load(), r.tail.Load(); t-c > r.threshold {
		uid := r.slots[(c+1)&r.mask].uid.Load() // read before the claim
		if uid >= r.lowest.Load() && r.cursor.CompareAndSwap(c, c+1) {
			return uid, nil
		}
	}
	var dst [1]int64
	if n := r.claim(dst[:]); n == 0 {
		if _, err := r.claimWaiting(dst[:]); err != nil {
			return 0, err
		}
	}
	return dst[0], nil
}

// TakeN fills a prefix of dst with the next values, claiming all of them with
// one compare-and-swap, and returns how many it took: at least one unless
// dst is empty or err is not nil. It takes no more than are waiting, and
// treats an empty ring as Take does. It reads values into dst before it
// claims them, so dst past the n it returns may hold values it did not take
// (other takes' values): only dst[:n] is the caller's.
func (r *Ring) TakeN(dst []int64) (int, error) {
	if len(dst) == 0 {
		return 0, nil
	}
	n := r.claim(dst)
	if n == 0 {
		var err error
		if n, err = r.claimWaiting(dst); err != nil {
			return 0, err
		}
	}
	return int(n), nil
}

// TakeAll fills dst with the next values, in increasing ring order, in as
// few TakeN calls as the ring allows, and returns len(dst). On an error it
// returns how many it took and the error, and zeroes dst past them: TakeN
// reads before it claims, so what it left there may be other takes'
// values, which must not reach the caller.
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

// claim reads up to len(dst) waiting values into dst, then claims them for
// the caller and returns how many; n == 0 means the ring was empty.
//
// The values are read before the claim: slots c+1..c+n were published (tail
// >= c+n was read first), and until the CAS moves the cursor past them the
// producer will not overwrite them, so if the CAS succeeds what was read is
// theirs. If it fails, the reads are discarded and the loop starts over.
//
// The loop is lock-free: a CAS fails only because another consumer's CAS
// moved the cursor, that is, because another take succeeded.
func (r *Ring) claim(dst []int64) (n int64) {
	for {
		c := r.cursor.Load()
		t := r.tail.Load()
		n = min(int64(len(dst)), t-c)
		if n <= 0 {
			return 0
		}
		if lowest := r.lowest.Load(); r.slots[(c+1)&r.mask].uid.Load() < lowest {
			r.dropStale(lowest)
			continue
		}
		for i := range n {
			dst[i] = r.slots[(c+1+i)&r.mask].uid.Load()
		}
		// Success proves the cursor was still c, and tail >= t > c: the
		// emptiness test rests on the CAS's own old value, not on a second
		// read of the cursor (the race in Baidu's take).
		if r.cursor.CompareAndSwap(c, c+n) {
			if t-(c+n) < r.threshold {
				r.wake()
			}
			return n
		}
	}
}

// DropBelow makes the values below lowest stale: no take returns one, and the
// first take to meet them, or DropBelow itself, claims them all as one run
// and drops them (counted in Stats.Stale). It is how the cached generator
// throws away IDs whose second has fallen too far behind the clock. The
// values must be put in increasing order, so that the stale ones are always
// a run at the head of the ring.
//
// Only the producer calls DropBelow.
func (r *Ring) DropBelow(lowest int64) {
	r.lowest.Store(lowest)
	r.dropStale(lowest)
}

// dropStale claims the values below lowest at the head of the ring, which
// increasing order keeps together, and drops them. It finds the first value
// at or above lowest by bisecting slots cursor+1..tail, reading before it
// claims as a take does: a CAS that succeeds proves the cursor stayed put,
// so by Room and Publish what it read were the values put there, and no one
// else claimed them. The loop is lock-free: a CAS fails only because
// another claim succeeded.
func (r *Ring) dropStale(lowest int64) {
	for {
		c := r.cursor.Load()
		t := r.tail.Load()
		lo, hi := c+1, t+1 // the first fresh sequence lies in [lo, hi]
		for lo < hi {
			mid := lo + (hi-lo)/2
			if r.slots[mid&r.mask].uid.Load() < lowest {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo == c+1 {
			return // the head is fresh, or the ring empty
		}
		if r.cursor.CompareAndSwap(c, lo-1) {
			r.stale.Add(lo - 1 - c)
			if t-(lo-1) < r.threshold {
				r.wake()
			}
			return
		}
	}
}

// claimWaiting is claim on an empty ring: it wakes the producer and loops on
// the RejectedTake policy until a claim succeeds, the policy gives up, or the
// ring is sealed and still empty.
//
// The policy is told how long the producer has put nothing, not how long
// this take has waited: with more consumers than processors, a take can find
// the ring empty for a long while only because others, scheduled first, take
// each refill. That is contention, not a producer that has stopped.
func (r *Ring) claimWaiting(dst []int64) (n int64, err error) {
	since, tail := time.Now(), r.tail.Load()
	for {
		if t := r.tail.Load(); t != tail {
			since, tail = time.Now(), t
		}
		if sealed := r.sealed.Load(); sealed != nil {
			// Look once more: values put before the Seal must still drain.
			if n = r.claim(dst); n > 0 {
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
			if n = r.claim(dst); n > 0 {
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
		if n = r.claim(dst); n > 0 {
			break
		}
	}
	r.takesWaited.Add(1)
	return n, nil
}

// Stats is a snapshot of a Ring's counters.
type Stats struct {
	Size        int64 // slots
	Available   int64 // values waiting to be taken
	Taken       int64 // values handed out by takes
	TakesWaited int64 // takes that found the ring empty, waited and succeeded
	TakesFailed int64 // takes that returned an error
	Stale       int64 // values dropped as stale (DropBelow), never handed out
}

// Stats returns a snapshot of r's counters. The fields are read one by one
// while the ring runs, so a busy ring's snapshot is only approximately of
// one instant; Available is kept within [0, Size].
func (r *Ring) Stats() Stats {
	c := r.cursor.Load() // before tail: tail >= any cursor read earlier
	t := r.tail.Load()
	stale := r.stale.Load()
	return Stats{
		Size:        r.size,
		Available:   min(t-c, r.size),
		Taken:       max(c+1-stale, 0),
		TakesWaited: r.takesWaited.Load(),
		TakesFailed: r.takesFailed.Load(),
		Stale:       stale,
	}
}
