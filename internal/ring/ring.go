package ring

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

// ErrEmpty and ErrOrder are ringbuffer's.
var (
	ErrEmpty = errors.New("ring is empty")
	ErrOrder = errors.New("run out of order")
)

// lineSize is the cache line size of the target, as x/sys/cpu pads it:
// 32 bytes on 32-bit ARM and MIPS, 128 on arm64, none on wasm.
const lineSize = unsafe.Sizeof(cpu.CacheLinePad{})

// line is what a run's two parts each round up to: the cache line, or 8
// bytes, their own alignment, where x/sys/cpu pads nothing (wasm, whose
// one thread shares no line). A pad is then (line - part%line) % line,
// never negative, whatever the port's line.
const line = max(lineSize, 8)

// fieldsSize is the bytes of a run's fields after next: seq to prev.
const fieldsSize = 6 * 8

// Run is ringbuffer.Run: N values from First, Step apart.
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
	_    [(line - 8%line) % line]byte

	seq    int64 // the run's number: 0 for the first put, then 1, 2, ...
	first  int64
	step   int64
	n      int64
	before int64 // the values put before this run, in all
	prev   int64 // the last value of the run put before this one, if before > 0
	_      [(line - fieldsSize%line) % line]byte
}

// Config is ringbuffer.Config, whose doc says what each field means.
type Config struct {
	Size          int
	PaddingFactor int
	RejectedTake  TakePolicy // nil: Wait(defaults.RingWait)
}

// Ring is the body of ringbuffer.Ring, whose doc says who may call which
// method. A Ring must not be copied.
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

	// lastPut is the last value of the last run put: the prev of the
	// next. Only the producer touches it.
	lastPut int64

	// lowest is the bound of DropBelow, below which values are stale.
	// Only the producer reads it, in Put; takes never need to (see
	// DropBelow). Atomic so that a test can read it while the ring runs.
	lowest atomic.Int64

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
	stale       atomic.Int64 // dropped from the ring by DropBelow: among the values passed
	skipped     atomic.Int64 // dropped by Put below the bound: never in the ring
	drained     atomic.Int64 // claimed by Drain: among the values passed, never taken

	_ cpu.CacheLinePad
}

// New is ringbuffer.New.
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

// Put is ringbuffer.Ring.Put. It refuses a run that does not start above
// the last value placed: takes hand values out in ring order, so the
// promise that each goroutine's values increase holds only if the runs
// do. The values it places below the bound of the last DropBelow it drops
// instead of putting them (counted in skipped): the run it puts starts
// past them, and none is put when all are below.
func (r *Ring) Put(v Run) (int, error) {
	if r.put.Load() > 0 && v.First <= r.lastPut {
		return 0, fmt.Errorf("ringbuffer: %w: a run from %d, not above %d, the last value put", ErrOrder, v.First, r.lastPut)
	}
	step := max(v.Step, 1)
	n := int64(min(v.N, r.Free()))
	if n <= 0 {
		return 0, nil
	}
	n = belowMax(v.First, step, n)
	first, placed := v.First, n
	if stale := freshFrom(first, step, n, r.lowest.Load()); stale > 0 {
		r.skipped.Add(stale)
		first += stale * step
		if n -= stale; n == 0 {
			return int(placed), nil
		}
	}
	t := r.tail.Load() // the producer's own field: no one else moves it
	put := r.put.Load()
	// Free found takes on the slot's run or past it (Room). A take that
	// holds that run reads it, not this one, and cur reaches this one
	// through the slot only after that run.
	r.slots[(t+1)&r.runMask].Store(&run{seq: t + 1, first: first, step: step, n: n, before: put, prev: r.lastPut})
	r.lastPut = first + (n-1)*step
	r.put.Store(put + n)
	r.tail.Store(t + 1)
	if r.paused.Load() != nil {
		r.paused.Store(nil)
	}
	return int(placed), nil
}

// belowMax returns how many of the n values from first, step apart, are
// at most MaxInt64, whatever the sign of first: MaxInt64-first, which
// passes MaxInt64 for a negative first, is exact in unsigned arithmetic.
// n is at least 1.
func belowMax(first, step, n int64) int64 {
	after := (uint64(math.MaxInt64) - uint64(first)) / uint64(step) // values that fit after first
	if uint64(n-1) > after {
		return int64(after) + 1
	}
	return n
}

// Free is ringbuffer.Ring.Free.
func (r *Ring) Free() int {
	// The next run replaces run tail+1-len(slots): free once cur is on
	// it or past it, since a take that reads cur keeps the run it read.
	if r.tail.Load()+1-int64(len(r.slots)) > r.cur.Load().seq {
		return 0
	}
	return int(r.size - (r.put.Load() - r.passed()))
}

// Head returns the value the next take gets, ok false when none waits.
// Only the producer calls it, so no Put moves the tail meanwhile; takes
// may move past the value as it returns.
func (r *Ring) Head() (v int64, ok bool) {
	d := r.cur.Load()
	if c := d.next.Load(); c < d.n {
		return d.first + c*d.step, true
	}
	next := r.slots[(d.seq+1)&r.runMask].Load()
	if next == nil || next.seq != d.seq+1 {
		return 0, false
	}
	return next.first + min(next.next.Load(), next.n-1)*next.step, true
}

// Wakeups is ringbuffer.Ring.Wakeups.
func (r *Ring) Wakeups() <-chan struct{} { return r.wakeups }

// Rearm is ringbuffer.Ring.Rearm.
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

// Pause is ringbuffer.Ring.Pause.
func (r *Ring) Pause(until time.Time, why error) { r.paused.Store(&pause{until, why}) }

// Seal is ringbuffer.Ring.Seal.
func (r *Ring) Seal(err error) { r.sealed.CompareAndSwap(nil, &err) }

// Drain ends the takes for good and returns the last value a take got, or
// DropBelow dropped: ok is false when none was. The producer must have
// stopped putting for good; Drain is for the owner that stopped it, as a
// generator's Close gives back what was handed out and nothing more.
//
// It moves next to the end of every run from the head to the last put,
// each with a compare-and-swap from the offset read, as DropBelow does, so
// that each value is claimed by a take or by Drain, never both, and the
// offsets below the one the swap replaced are exactly those takes claimed.
// A take claims only on a run cur pointed to, so from the head on: once
// every such run is drained, no take gets a value, and the last value
// claimed is the last of the highest run that had any. Where no run had,
// every value before the head was claimed when Drain began (cur moves
// past a run only then), and the last is the head's prev. A Store in place
// of the swap would lose the claims of takes between its load and its
// store (TestDrainStress).
//
// Runs above the head are in their slots: the producer replaces a run only
// once cur is on it or past it (Room). The head, which a slot may no
// longer hold, is read through cur.
func (r *Ring) Drain() (last int64, ok bool) {
	head := r.cur.Load()
	for seq := r.tail.Load(); seq > head.seq; seq-- {
		d := r.slots[seq&r.runMask].Load()
		if c := r.drainRun(d); c > 0 && !ok {
			last, ok = d.first+(c-1)*d.step, true
		}
	}
	if c := r.drainRun(head); c > 0 && !ok {
		return head.first + (c-1)*head.step, true
	}
	if !ok && head.before > 0 {
		return head.prev, true
	}
	return last, ok
}

// drainRun moves d's next to its end and returns how many of its values
// were claimed before: by takes, or by DropBelow. The rest it counts as
// drained, so that Stats does not count them as taken.
func (r *Ring) drainRun(d *run) int64 {
	for {
		c := d.next.Load()
		if c >= d.n {
			return d.n
		}
		if d.next.CompareAndSwap(c, d.n) {
			r.drained.Add(d.n - c)
			return c
		}
	}
}

// Take is ringbuffer.Ring.Take.
func (r *Ring) Take() (int64, error) {
	v, miss, off := r.TakeFast()
	if miss != nil {
		return r.TakeMiss(miss, off)
	}
	return v, nil
}

// TakeFast is the common case of Take, small enough that Go inlines it
// into a generator's NextID, which then costs one call where Take would
// cost two: one add on the only line a take writes takes an offset of the
// head run. When the offset holds a value that is neither its run's last
// nor one where a take looks at the threshold, it returns that value and a
// nil miss. Otherwise it returns the run and offset it took, which
// the add made the caller's: TakeMiss must finish the take with them.
func (r *Ring) TakeFast() (v int64, miss *run, off int64) {
	d := r.cur.Load()
	if raceWindows && takeWindow != nil {
		takeWindow()
	}
	off = d.next.Add(1) - 1
	if off < d.n-1 && off&r.wakeMask != 0 {
		return d.first + off*d.step, nil, 0
	}
	return 0, d, off
}

// TakeMiss finishes a take whose TakeFast missed: the add took offset off
// of run d.
func (r *Ring) TakeMiss(d *run, off int64) (int64, error) {
	if off < d.n {
		if off == d.n-1 {
			r.advance(d)
		}
		if r.put.Load()-(d.before+off+1) < r.threshold {
			r.wake()
		}
		return d.first + off*d.step, nil
	}
	var dst [1]int64
	if n := r.takeRun(dst[:]); n == 0 {
		if _, err := r.takeWaiting(dst[:]); err != nil {
			return 0, err
		}
	}
	return dst[0], nil
}

// TakeN is ringbuffer.Ring.TakeN.
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

// TakeAll is ringbuffer.Ring.TakeAll.
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
		want := min(int64(len(dst)), d.n-c)
		if raceWindows && takeWindow != nil {
			takeWindow()
		}
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

// DropBelow is ringbuffer.Ring.DropBelow. It drops the stale values
// before it publishes the bound: in each run at the head of the ring,
// which increasing order keeps together, one compare-and-swap moves next
// from the offset read to the first fresh one, so that a value is taken
// once or dropped once, never both, and a run dropped to its end moves cur
// past it. A CAS fails only because a take moved next first. Once it
// returns, no stale value is left for a take to meet, and Put drops those
// of later runs, so takes never look at the bound.
func (r *Ring) DropBelow(lowest int64) {
	for {
		d, c := r.headRun()
		if d == nil || d.first+c*d.step >= lowest {
			break // the ring is empty, or its head fresh
		}
		fresh := freshFrom(d.first, d.step, d.n, lowest)
		if raceWindows && dropWindow != nil {
			dropWindow()
		}
		if d.next.CompareAndSwap(c, fresh) {
			r.stale.Add(fresh - c)
			if fresh < d.n {
				break
			}
			r.advance(d)
		}
	}
	r.lowest.Store(lowest)
}

// freshFrom returns the offset of the first value at or above lowest of
// the n values from first, step apart, or n when none is: lowest-first
// over step, rounded up, in unsigned arithmetic since lowest-first may
// pass MaxInt64.
func freshFrom(first, step, n, lowest int64) int64 {
	if first >= lowest {
		return 0
	}
	dist := uint64(lowest) - uint64(first)
	q := dist / uint64(step)
	if q >= uint64(n) {
		return n
	}
	if dist%uint64(step) != 0 {
		q++
	}
	return int64(q)
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

// Stats is ringbuffer.Stats, whose doc says what each field counts.
type Stats struct {
	Size, Available, Taken, TakesWaited, TakesFailed, Stale int64
}

// passed returns how many values takes have passed over, taken or
// dropped: those before the run cur points to, and that run's so far.
func (r *Ring) passed() int64 {
	d := r.cur.Load()
	return d.before + min(d.next.Load(), d.n)
}

// Stats is ringbuffer.Ring.Stats.
func (r *Ring) Stats() Stats {
	passed := r.passed()
	put := r.put.Load()
	stale := r.stale.Load()
	return Stats{
		Size:        r.size,
		Available:   min(max(put-passed, 0), r.size),
		Taken:       max(passed-stale-r.drained.Load(), 0),
		TakesWaited: r.takesWaited.Load(),
		TakesFailed: r.takesFailed.Load(),
		Stale:       stale + r.skipped.Load(),
	}
}
