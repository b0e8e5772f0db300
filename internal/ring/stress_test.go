package ring

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

var (
	errDone = errors.New("producer done")
	errHeld = errors.New("held by the test")
)

// TestStress runs one producer and 8 consumers over rings of one slot
// and of four, with runs of random length, and checks that every value put
// is taken exactly once, and that nothing else is taken; that a take that
// began after another ended got larger values, whichever goroutines made
// them; and, with DropBelow, that no take got a value below the bound
// published before it began. On rings this small every slot is reused
// constantly, so takes that read a run after the producer has replaced it
// in its slot are common. Consumers take with Take, or with TakeN and
// TakeAll by turns, and read Stats as they go; the producer pauses now
// and then, and waits for the consumers' wake-ups when the ring is full.
//
// Under the race detector, takeWindow holds a take between its load of
// cur and its add, and dropWindow holds DropBelow before its drop until a
// take that began meanwhile has ended: moving DropBelow's store of the
// bound before its drops fails the stale runs.
func TestStress(t *testing.T) {
	total := sizetest.Pick(1_000_000, 40_000)
	for _, size := range []int{16, 64} {
		for _, batch := range []bool{false, true} {
			name := "Take"
			if batch {
				name = "TakeN+TakeAll"
			}
			t.Run(fmt.Sprintf("%s/size%d", name, size), func(t *testing.T) {
				newStress(t, size, total).run(8, batch, 0)
			})
			// The producer drops what falls behind as it goes, so that takes meet
			// stale values and drop them while the others take.
			t.Run(fmt.Sprintf("%s/size%d/stale", name, size), func(t *testing.T) {
				newStress(t, size, total).run(8, batch, int64(size)/4)
			})
		}
	}
}

// stress is one run of TestStress: a ring, and what its takes saw.
type stress struct {
	t     *testing.T
	r     *Ring
	total int
	seen  []atomic.Bool // seen[v]: a take got v

	stop     atomic.Bool
	stopped  chan struct{} // closed by fail, so that a producer waiting for a wake-up stops too
	stopOnce sync.Once

	// clock numbers the starts and ends of takes, in the order they
	// happen; lastStart is the latest start of a take that has ended.
	clock     atomic.Int64
	lastStart atomic.Int64
}

// took is one take: the clock at its start and end, and its values.
type took struct {
	start, end int64
	lo, hi     int64
}

func newStress(t *testing.T, size, total int) *stress {
	s := &stress{t: t, total: total, seen: make([]atomic.Bool, total+1), stopped: make(chan struct{})}
	s.r = mustNew(t, Config{Size: size, RejectedTake: func(time.Duration) error {
		if s.stop.Load() {
			return errDone
		}
		runtime.Gosched()
		return nil
	}})
	return s
}

func (s *stress) fail(format string, args ...any) {
	s.stop.Store(true)
	s.stopOnce.Do(func() { close(s.stopped) })
	s.t.Errorf(format, args...)
}

// run checks each value as it is taken, not only at the end: a broken
// take can also leave the ring in a state where the producer and consumers
// wait on each other, and the test must fail then, not hang. With staleLag
// above 0, the producer drops what falls staleLag below what it puts.
func (s *stress) run(consumers int, batch bool, staleLag int64) {
	takeWindow = func() {
		if rand.IntN(4) == 0 {
			runtime.Gosched()
		}
	}
	dropWindow = s.waitForATake
	defer func() { takeWindow, dropWindow = nil, nil }()

	got := make([][]took, consumers)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range consumers {
		wg.Go(func() {
			<-gate
			got[i] = s.consume(i, batch)
		})
	}
	close(gate)
	s.produce(staleLag)
	s.r.Seal(errDone)
	wg.Wait()
	if s.t.Failed() {
		return
	}
	checkOrder(s.t, slices.Concat(got...))
	s.checkAll(consumers, staleLag)
}

// waitForATake is dropWindow: every other time, it yields until a take
// that began after it was called has ended, or a while has passed. Not
// every time: the takes it waits for take the stale values DropBelow
// would drop, and the test must see drops too.
func (s *stress) waitForATake() {
	if rand.IntN(2) == 0 {
		return
	}
	mark := s.clock.Load()
	for range 200 {
		if s.lastStart.Load() > mark {
			return
		}
		runtime.Gosched()
	}
}

// consume takes until the ring is sealed and drained, and returns its takes.
func (s *stress) consume(i int, batch bool) []took {
	var takes []took
	dst := make([]int64, 3)
	for k := 0; ; k++ {
		lowest := s.r.lowest.Load()
		start := s.clock.Add(1)
		n, err := s.take(dst, batch && k%2 == 0, batch && k%2 == 1)
		end := s.clock.Add(1)
		raise(&s.lastStart, start)
		if n > 0 {
			if !s.check(i, dst[:n], lowest) {
				return takes
			}
			takes = append(takes, took{start, end, dst[0], dst[n-1]})
		}
		if errors.Is(err, errDone) {
			return takes
		}
		if err != nil {
			s.fail("consumer %d: %v", i, err)
			return takes
		}
		if i == 0 && k%64 == 0 {
			s.checkStats()
		}
	}
}

// raise sets a to v unless it is above v already: a CAS loop, since
// other consumers raise it meanwhile.
func raise(a *atomic.Int64, v int64) {
	for old := a.Load(); old < v && !a.CompareAndSwap(old, v); old = a.Load() {
	}
}

// take is one Take, TakeN or TakeAll into dst.
func (s *stress) take(dst []int64, takeN, takeAll bool) (int, error) {
	switch {
	case takeN:
		return s.r.TakeN(dst)
	case takeAll:
		return s.r.TakeAll(dst)
	}
	v, err := s.r.Take()
	if err != nil {
		return 0, err
	}
	dst[0] = v
	return 1, nil
}

// check fails the test unless vals were put, not taken before, and not
// below lowest, the bound published before the take began.
func (s *stress) check(i int, vals []int64, lowest int64) bool {
	for _, v := range vals {
		switch {
		case v < 1 || v > int64(s.total):
			s.fail("consumer %d took %d, never put", i, v)
		case v < lowest:
			s.fail("consumer %d took %d, below the lowest bound %d", i, v, lowest)
		case s.seen[v].Swap(true):
			s.fail("consumer %d took %d, taken before", i, v)
		default:
			continue
		}
		return false
	}
	return true
}

// checkStats fails the test if a snapshot of Stats, taken while the ring
// runs, counts more than the ring holds or than was put.
func (s *stress) checkStats() {
	st := s.r.Stats()
	if st.Available < 0 || st.Available > st.Size || st.Taken < 0 || st.Taken > int64(s.total) || st.Stale > int64(s.total) {
		s.fail("Stats while the ring runs = %+v: outside [0, Size], or above the %d put", st, s.total)
	}
}

// produce puts 1 to total in runs of random length, waits for a wake-up
// whenever the ring has no room, pauses now and then, and with staleLag
// above 0 drops what falls staleLag behind.
func (s *stress) produce(staleLag int64) {
	rnd := rand.New(rand.NewPCG(1, 2))
	wedged := time.NewTimer(time.Hour)
	defer wedged.Stop()
	for next := int64(1); next <= int64(s.total) && !s.stop.Load(); {
		if rnd.IntN(16) == 0 {
			until := time.Time{} // until further notice: takes ask their policy
			if rnd.IntN(2) == 0 {
				until = time.Now().Add(50 * time.Microsecond) // takes sleep through it
			}
			s.r.Pause(until, errHeld)
			runtime.Gosched()
		}
		left := int(min(1+rnd.Int64N(s.r.size), int64(s.total)+1-next))
		for left > 0 && !s.stop.Load() {
			n, err := s.r.Put(Run{First: next, N: left})
			if err != nil {
				s.fail("Put: %v", err)
				return
			}
			left -= n
			next += int64(n)
			if n == 0 && !s.waitForWakeup(wedged, next) {
				return
			}
		}
		if staleLag > 0 && rnd.IntN(4) == 0 {
			s.r.DropBelow(next - staleLag)
		}
	}
}

// waitForWakeup waits for a take to ask for a refill, as a producer does
// when the ring is full, and rearms. Takes free a ring of 64 in
// microseconds: one that asks for nothing for 10 s has lost a wake-up or
// wedged.
func (s *stress) waitForWakeup(wedged *time.Timer, next int64) bool {
	wedged.Reset(10 * time.Second)
	select {
	case <-s.r.Wakeups():
		s.r.Rearm()
		return true
	case <-s.stopped:
	case <-wedged.C:
		s.fail("no wake-up for 10 s on a full ring with %d of %d put: Stats %+v", next-1, s.total, s.r.Stats())
	}
	return false
}

// checkOrder fails the test unless every take that began after another
// had ended got larger values: the ring hands values out in the order
// put, across goroutines, not only within each.
func checkOrder(t *testing.T, takes []took) {
	byStart := slices.SortedFunc(slices.Values(takes), func(a, b took) int { return cmp.Compare(a.start, b.start) })
	byEnd := slices.SortedFunc(slices.Values(takes), func(a, b took) int { return cmp.Compare(a.end, b.end) })
	ended, top := 0, took{hi: math.MinInt64} // top: of the takes ended so far, the one with the largest value
	for _, b := range byStart {
		for ; ended < len(byEnd) && byEnd[ended].end < b.start; ended++ {
			if byEnd[ended].hi > top.hi {
				top = byEnd[ended]
			}
		}
		if b.lo <= top.hi {
			t.Fatalf("a take from clock %d to %d got %d, after one from %d to %d got %d", b.start, b.end, b.lo, top.start, top.end, top.hi)
		}
	}
}

// checkAll checks, once all is taken, that every value put was taken or
// dropped as stale, and that Stats counts them so.
func (s *stress) checkAll(consumers int, staleLag int64) {
	t, st := s.t, s.r.Stats()
	unseen := int64(0)
	for v := 1; v <= s.total; v++ {
		if s.seen[v].Load() {
			continue
		}
		if int64(v) >= s.r.lowest.Load() {
			t.Fatalf("value %d put, never taken, and not below the lowest bound %d", v, s.r.lowest.Load())
		}
		unseen++
	}
	if unseen != st.Stale {
		t.Fatalf("%d values never taken, %d dropped as stale: a take lost values it passed over, or a drop counted taken ones", unseen, st.Stale)
	}
	if staleLag > 0 && st.Stale == 0 {
		t.Fatalf("Stats = %+v: DropBelow dropped nothing, so the test tested nothing", st)
	}
	if st.Taken+st.Stale != int64(s.total) || st.Available != 0 || st.TakesFailed != int64(consumers) {
		t.Fatalf("Stats = %+v; want all %d values taken or stale, none waiting, one failed take per consumer", st, s.total)
	}
}
