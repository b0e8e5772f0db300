package ring

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		text string // the field and value the error names
	}{
		{"zero size", Config{Size: 0}, "Size 0,"},
		{"negative size", Config{Size: -8}, "Size -8,"},
		{"not a power of two", Config{Size: 12}, "Size 12,"},
		{"above maxSize", Config{Size: maxSize * 2}, "Size 33554432, want a power of two from 1 to 16777216"},
		{"negative factor", Config{Size: 8, PaddingFactor: -1}, "PaddingFactor -1,"},
		{"factor 100", Config{Size: 8, PaddingFactor: 100}, "PaddingFactor 100, want 1 to 99, or 0 for 50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(tt.cfg)
			if !errors.Is(err, uidgen.ErrConfig) || r != nil || !strings.HasPrefix(err.Error(), "ringbuffer: ") || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("New(%+v) = %v, %v; want nil and an error wrapping %v, starting \"ringbuffer: \", that says %q", tt.cfg, r, err, uidgen.ErrConfig, tt.text)
			}
		})
	}
	for _, size := range []int{1, 2, 8, 1 << 10} {
		if _, err := New(Config{Size: size, PaddingFactor: 99}); err != nil {
			t.Errorf("New(size %d) = %v", size, err)
		}
	}
}

// TestLayout checks the padding: a run's next has a line to itself, and
// its other fields the lines after it (two lines in all where a line holds
// them, as on amd64 and arm64), as have cur, tail and what else the
// consumers write; and a ring needs no more memory for its runs than 16
// bytes a value, what a ring of values took, or a quarter of a line where
// lines are longer, but for a ring of under 16, which holds one run.
func TestLayout(t *testing.T) {
	up := func(n uintptr) uintptr { return (n + line - 1) / line * line }
	seq := unsafe.Offsetof(run{}.seq)
	if fields := unsafe.Offsetof(run{}.prev) + 8 - seq; fields != fieldsSize {
		t.Errorf("a run's fields from seq to prev are %d bytes, fieldsSize says %d", fields, fieldsSize)
	}
	want := up(8) + up(fieldsSize)
	if lineSize == 0 {
		want += 8 // Go pads a struct that ends in a zero-size field, whose address would point past it
	}
	if got := unsafe.Sizeof(run{}); got != want || seq != up(8) || seq < lineSize {
		t.Errorf("run is %d bytes with its fields from %d, want %d from %d: next alone on a line of %d", got, seq, want, up(8), lineSize)
	}
	if lineSize >= fieldsSize && unsafe.Sizeof(run{}) != 2*lineSize {
		t.Errorf("run is %d bytes, want two lines (%d)", unsafe.Sizeof(run{}), 2*lineSize)
	}
	// Each gap runs from the end of one field to the start of another;
	// sizes come from unsafe, since pointers are 4 bytes on 32-bit ports.
	var r Ring
	for _, g := range []struct {
		between  string
		from, to uintptr
	}{
		{"the Ring's start and slots", 0, unsafe.Offsetof(r.slots)},
		{"wakeups and cur", unsafe.Offsetof(r.wakeups) + unsafe.Sizeof(r.wakeups), unsafe.Offsetof(r.cur)},
		{"cur and tail", unsafe.Offsetof(r.cur) + unsafe.Sizeof(r.cur), unsafe.Offsetof(r.tail)},
		{"put and wakePending", unsafe.Offsetof(r.put) + unsafe.Sizeof(r.put), unsafe.Offsetof(r.wakePending)},
		{"drained and the Ring's end", unsafe.Offsetof(r.drained) + unsafe.Sizeof(r.drained), unsafe.Sizeof(r)},
	} {
		if g.to-g.from < lineSize {
			t.Errorf("%d bytes between %s (%d to %d), want a line (%d)", g.to-g.from, g.between, g.from, g.to, lineSize)
		}
	}
	for size := 1; size <= maxSize; size *= 2 {
		r, err := New(Config{Size: size})
		if err != nil {
			t.Fatal(err)
		}
		perRun := unsafe.Sizeof(r.slots[0]) + unsafe.Sizeof(run{})
		perValue := max(16, lineSize/4)
		if bytes := uintptr(len(r.slots)) * perRun; bytes > max(uintptr(size)*perValue, perRun) {
			t.Errorf("size %d: %d runs of %d bytes, more than %d a value", size, len(r.slots), perRun, perValue)
		}
	}
}

func mustNew(t testing.TB, cfg Config) *Ring {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// seqs returns from, from+1, ..., from+n-1.
func seqs(from, n int64) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = from + int64(i)
	}
	return s
}

func TestPutTakeInOrder(t *testing.T) {
	r := mustNew(t, Config{Size: 32, RejectedTake: Fail}) // 2 slots
	if n, err := r.Put(Run{First: 1, N: 20}); n != 20 || err != nil {
		t.Fatalf("Put 20 into an empty ring of 32 = %d", n)
	}
	if n, err := r.Put(Run{First: 21, N: 20}); n != 12 || err != nil {
		t.Fatalf("Put 20 into a ring with 12 free = %d", n)
	}
	if n, err := r.Put(Run{First: 33, N: 1}); n != 0 || err != nil {
		t.Fatalf("Put into a full ring = %d", n)
	}
	var got []int64
	for range 4 {
		v, err := r.Take()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	dst := make([]int64, 40)
	n, err := r.TakeN(dst)
	if err != nil || n != 28 {
		t.Fatalf("TakeN with 28 waiting in 2 runs = %d, %v", n, err)
	}
	got = append(got, dst[:n]...)
	if !slices.Equal(got, seqs(1, 32)) {
		t.Fatalf("took %v, want 1..32", got)
	}
	if _, err := r.Take(); !errors.Is(err, ErrEmpty) {
		t.Fatalf("Take on an empty ring with Fail = %v, want ErrEmpty", err)
	}
	// A second lap reuses every slot.
	if n, err := r.Put(Run{First: 41, N: 32}); n != 32 || err != nil {
		t.Fatalf("Put 32 on the second lap = %d", n)
	}
	want := Stats{Size: 32, Available: 32, Taken: 32, TakesFailed: 1}
	if s := r.Stats(); s != want {
		t.Fatalf("Stats = %+v, want %+v", s, want)
	}
	if n, err := r.TakeN(nil); n != 0 || err != nil {
		t.Fatalf("TakeN(nil) = %d, %v", n, err)
	}
}

// TestTakenIsRoom: a take moves the run's next past what it took, so a
// value taken is room at once, while a slot is free for another run only
// once its run is used up.
func TestTakenIsRoom(t *testing.T) {
	r := mustNew(t, Config{Size: 64, RejectedTake: Fail}) // 4 slots
	r.Put(Run{First: 1, N: 64})
	dst := make([]int64, 2)
	if n := r.takeRun(dst); n != 2 || dst[0] != 1 || dst[1] != 2 || r.Free() != 2 {
		t.Fatalf("takeRun = %d, %v with Free %d; want 2, [1 2], 2", n, dst, r.Free())
	}
	if n, err := r.Put(Run{First: 65, N: 3}); n != 2 || err != nil {
		t.Fatalf("Put with 2 values taken placed %d, want 2", n)
	}
	if s := r.Stats(); s.Available != 64 || s.Taken != 2 {
		t.Fatalf("Stats = %+v; want 64 waiting and 2 taken", s)
	}
	// Runs of one value each fill the slots before the values.
	r = mustNew(t, Config{Size: 64, RejectedTake: Fail})
	for i := range int64(4) {
		if n, err := r.Put(Run{First: i + 1, N: 1}); n != 1 || err != nil {
			t.Fatalf("Put of run %d into a ring of 4 slots = %d", i, n)
		}
	}
	if free := r.Free(); free != 0 {
		t.Fatalf("Free with every slot holding a run = %d, want 0", free)
	}
	if v, err := r.Take(); v != 1 || err != nil || r.Free() != 61 {
		t.Fatalf("Take = %d, %v with Free %d; want 1 and 61 free", v, err, r.Free())
	}
}

// TestRunStep: a run's values are Step apart, and a Step below 1 counts
// as 1.
func TestRunStep(t *testing.T) {
	r := mustNew(t, Config{Size: 64, RejectedTake: Fail})
	r.Put(Run{First: 100, Step: 16, N: 3})
	r.Put(Run{First: 200, Step: 0, N: 2})
	dst := make([]int64, 10)
	n, err := r.TakeN(dst)
	if want := []int64{100, 116, 132, 200, 201}; err != nil || !slices.Equal(dst[:n], want) {
		t.Fatalf("TakeN = %v, %v; want %v", dst[:n], err, want)
	}
}

// TestPutCutsAtMaxInt64: a run whose values would pass MaxInt64 is cut
// where they would, whatever the sign of its first value, so that no take
// gets a value that wrapped around to a negative one.
func TestPutCutsAtMaxInt64(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  Run
		want []int64
	}{
		{"positive first", Run{First: math.MaxInt64 - 20, Step: 10, N: 5}, []int64{math.MaxInt64 - 20, math.MaxInt64 - 10, math.MaxInt64}},
		{"first 0", Run{First: 0, Step: 1 << 62, N: 3}, []int64{0, 1 << 62}},
		{"negative first", Run{First: -5, Step: 1 << 62, N: 4}, []int64{-5, 1<<62 - 5, math.MaxInt64 - 4}},
		{"first MinInt64", Run{First: math.MinInt64, Step: math.MaxInt64, N: 4}, []int64{math.MinInt64, -1, math.MaxInt64 - 1}},
		{"no cut from MinInt64", Run{First: math.MinInt64, N: 3}, []int64{math.MinInt64, math.MinInt64 + 1, math.MinInt64 + 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustNew(t, Config{Size: 64, RejectedTake: Fail})
			if n, err := r.Put(tc.run); n != len(tc.want) || err != nil {
				t.Fatalf("Put(%+v) = %d, %v; want %d placed", tc.run, n, err, len(tc.want))
			}
			dst := make([]int64, 8)
			if n, err := r.TakeN(dst); err != nil || !slices.Equal(dst[:n], tc.want) {
				t.Fatalf("TakeN = %v, %v; want %v", dst[:n], err, tc.want)
			}
		})
	}
}

// TestPutRefusesOutOfOrder: a run that does not start above the last value
// placed is refused whole, with an error that names both, and the ring
// goes on as before it.
func TestPutRefusesOutOfOrder(t *testing.T) {
	r := mustNew(t, Config{Size: 64, RejectedTake: Fail})
	r.Put(Run{First: 10, N: 3}) // 10, 11, 12
	for _, v := range []Run{{First: 12, N: 1}, {First: 5, Step: 100, N: 2}, {First: -1, N: 1}} {
		n, err := r.Put(v)
		if text := fmt.Sprintf("a run from %d, not above 12", v.First); n != 0 || !errors.Is(err, ErrOrder) || !strings.Contains(err.Error(), text) {
			t.Fatalf("Put(%+v) after 10..12 = %d, %v; want 0 and ErrOrder saying %q", v, n, err, text)
		}
	}
	if n, err := r.Put(Run{First: 13, N: 1}); n != 1 || err != nil {
		t.Fatalf("Put of 13 after 12 = %d, %v; want 1 placed", n, err)
	}
	dst := make([]int64, 8)
	if n, err := r.TakeN(dst); err != nil || !slices.Equal(dst[:n], []int64{10, 11, 12, 13}) {
		t.Fatalf("TakeN = %v, %v; want [10 11 12 13]", dst[:n], err)
	}
}

func TestWakeOnePending(t *testing.T) {
	r := mustNew(t, Config{Size: 8, PaddingFactor: 50})
	r.Put(Run{First: 1, N: 8})
	pending := func() int { return len(r.Wakeups()) }
	for range 4 { // leaves 7, 6, 5, 4: not below 4
		if _, err := r.Take(); err != nil {
			t.Fatal(err)
		}
	}
	if pending() != 0 {
		t.Fatal("woke the producer above the threshold")
	}
	for range 2 { // leaves 3, then 2
		if _, err := r.Take(); err != nil {
			t.Fatal(err)
		}
	}
	if pending() != 1 {
		t.Fatalf("%d wake-ups pending below the threshold, want 1", pending())
	}
	<-r.Wakeups()
	if _, err := r.Take(); err != nil || pending() != 0 {
		t.Fatalf("woke again before Rearm: %v, %d pending", err, pending())
	}
	r.Rearm()
	if _, err := r.Take(); err != nil || pending() != 1 {
		t.Fatalf("no wake-up after Rearm: %v, %d pending", err, pending())
	}
}

func TestSealDrainsThenFails(t *testing.T) {
	cause := errors.New("producer gone")
	r := mustNew(t, Config{Size: 4})
	r.Put(Run{First: 1, N: 2})
	r.Seal(cause)
	r.Seal(errors.New("second seal, ignored"))
	dst := make([]int64, 4)
	if n, err := r.TakeN(dst); n != 2 || err != nil {
		t.Fatalf("TakeN after Seal = %d, %v; want the 2 put before", n, err)
	}
	for _, take := range []func() error{
		func() error { _, err := r.Take(); return err },
		func() error { _, err := r.TakeN(dst); return err },
	} {
		if err := take(); !errors.Is(err, ErrEmpty) || !errors.Is(err, cause) {
			t.Fatalf("take from a sealed, drained ring = %v; want ErrEmpty and the cause", err)
		}
	}
	if s := r.Stats(); s.TakesFailed != 2 {
		t.Fatalf("TakesFailed = %d, want 2", s.TakesFailed)
	}
}

// TestTakeAll: TakeAll takes across runs until dst is full, and on a
// sealed ring returns what it took with dst past it zeroed.
func TestTakeAll(t *testing.T) {
	r := mustNew(t, Config{Size: 4})
	r.Put(Run{First: 1, N: 4})
	dst := make([]int64, 6)
	done := make(chan struct{})
	go func() { // the second run, once the first has made room
		defer close(done)
		for r.Free() < 2 {
			runtime.Gosched()
		}
		r.Put(Run{First: 5, N: 2})
	}()
	if n, err := r.TakeAll(dst); n != 6 || err != nil || !slices.Equal(dst, seqs(1, 6)) {
		t.Fatalf("TakeAll = %d, %v, %v; want 1 to 6", n, err, dst)
	}
	<-done
	r.Put(Run{First: 7, N: 2})
	r.Seal(errors.New("done"))
	for i := range dst {
		dst[i] = -1
	}
	n, err := r.TakeAll(dst)
	if n != 2 || !errors.Is(err, ErrEmpty) || !slices.Equal(dst, []int64{7, 8, 0, 0, 0, 0}) {
		t.Fatalf("TakeAll on a sealed ring = %d, %v, %v; want 2, ErrEmpty and [7 8 0 0 0 0]", n, err, dst)
	}
}

// TestTakeWaitsForProducer: an empty take wakes the producer and, under the
// default policy, gets the value the producer then puts.
func TestTakeWaitsForProducer(t *testing.T) {
	r := mustNew(t, Config{Size: 4, RejectedTake: Wait(time.Hour)})
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-r.Wakeups()
		r.Rearm()
		r.Put(Run{First: 42, N: 1})
	}()
	v, err := r.Take()
	<-done
	if v != 42 || err != nil {
		t.Fatalf("Take = %d, %v; want 42", v, err)
	}
	if s := r.Stats(); s.TakesWaited != 1 || s.TakesFailed != 0 {
		t.Fatalf("Stats = %+v, want one take waited", s)
	}
}

func TestWaitGivesUp(t *testing.T) {
	r := mustNew(t, Config{Size: 4, RejectedTake: Wait(0)})
	if _, err := r.Take(); !errors.Is(err, ErrEmpty) {
		t.Fatalf("Take = %v, want ErrEmpty", err)
	}
}

// TestPause: a take waits out a pause the producer announced until a moment,
// however long past its policy's limit, and gets the value put then; a take
// on a pause until further notice gives up as its policy says, with the
// producer's reason in its error.
func TestPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := mustNew(t, Config{Size: 4, RejectedTake: Wait(10 * time.Millisecond)})
		r.Pause(time.Now().Add(time.Second), errors.New("waiting for the clock"))
		go func() {
			time.Sleep(time.Second)
			r.Put(Run{First: 7, N: 1})
		}()
		if v, err := r.Take(); v != 7 || err != nil {
			t.Fatalf("Take through a 1 s pause with a 10 ms policy = %d, %v; want 7", v, err)
		}
	})

	// Wait spins before it sleeps, which a synctest bubble would never let
	// end: this half runs on the real clock.
	r := mustNew(t, Config{Size: 4, RejectedTake: Wait(10 * time.Millisecond)})
	why := errors.New("reservation ran out")
	r.Pause(time.Time{}, why)
	if _, err := r.Take(); !errors.Is(err, ErrEmpty) || !errors.Is(err, why) {
		t.Fatalf("Take on an open-ended pause = %v, want ErrEmpty wrapping the reason", err)
	}
	r.Put(Run{First: 8, N: 1}) // ends the pause
	r.Take()
	if _, err := r.Take(); !errors.Is(err, ErrEmpty) || errors.Is(err, why) {
		t.Fatalf("Take after the pause ended = %v, want ErrEmpty alone", err)
	}
}

// TestPutBelowLowest: values put below the bound of an earlier DropBelow
// are stale at once, since takes no longer look at the bound: Put counts
// them as placed and stale, and puts only the rest, so that Stats never
// counts them as waiting or taken.
func TestPutBelowLowest(t *testing.T) {
	r := mustNew(t, Config{Size: 64, RejectedTake: Fail})
	r.Put(Run{First: 1, N: 5})
	dst := make([]int64, 8)
	if n, err := r.TakeN(dst); n != 5 || err != nil {
		t.Fatalf("TakeN = %d, %v; want the 5 put", n, err)
	}
	r.DropBelow(100)
	if n, err := r.Put(Run{First: 10, Step: 10, N: 5}); n != 5 || err != nil { // 10..50: all stale
		t.Fatalf("Put of a run wholly below the bound = %d, want 5", n)
	}
	if s := r.Stats(); s != (Stats{Size: 64, Taken: 5, Stale: 5}) {
		t.Fatalf("Stats after a Put wholly below the bound = %+v; want 5 taken, 5 stale, none waiting", s)
	}
	if n, err := r.Put(Run{First: 95, Step: 2, N: 5}); n != 5 || err != nil { // 95, 97, 99 stale
		t.Fatalf("Put of a run partly below the bound = %d, want 5", n)
	}
	if s := r.Stats(); s.Available != 2 || s.Stale != 8 || s.Taken != 5 {
		t.Fatalf("Stats after a Put partly below the bound = %+v; want 2 waiting, 8 stale, 5 taken", s)
	}
	n, err := r.TakeN(dst)
	if err != nil || !slices.Equal(dst[:n], []int64{101, 103}) {
		t.Fatalf("TakeN = %v, %v; want [101 103]", dst[:n], err)
	}
	if s := r.Stats(); s.Stale != 8 || s.Taken != 7 || s.Available != 0 {
		t.Fatalf("Stats = %+v; want 8 stale, 7 taken, none waiting", s)
	}
	r.DropBelow(110)
	r.Put(Run{First: 109, N: 2})
	if v, err := r.Take(); v != 110 || err != nil {
		t.Fatalf("Take = %d, %v; want 110, the first value at the bound", v, err)
	}
}

// TestDrainLast: Drain returns the last value taken, at the head, past it
// or in the run before it, and afterwards no take gets anything.
func TestDrainLast(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		runs   []Run
		take   int
		last   int64
		wantOK bool
	}{
		{"nothing put", 64, nil, 0, 0, false},
		{"nothing taken", 64, []Run{{First: 10, N: 4}, {First: 20, N: 4}}, 0, 0, false},
		{"inside the head", 64, []Run{{First: 10, N: 4}, {First: 20, N: 4}}, 2, 11, true},
		{"the head's last", 64, []Run{{First: 10, N: 4}, {First: 20, N: 4}}, 4, 13, true},
		{"into the next", 64, []Run{{First: 10, N: 4}, {First: 20, Step: 5, N: 4}}, 6, 25, true},
		{"all", 64, []Run{{First: 10, N: 4}, {First: 20, N: 4}}, 8, 23, true},
		// One slot: the head's run is no longer in it once the next is put.
		{"one slot", 4, []Run{{First: 10, N: 2}, {First: 20, N: 2}}, 2, 11, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustNew(t, Config{Size: tc.size, RejectedTake: Fail})
			taken := 0
			for _, v := range tc.runs {
				r.Put(v)
				for ; taken < tc.take && r.Stats().Available > 0; taken++ {
					if _, err := r.Take(); err != nil {
						t.Fatal(err)
					}
				}
			}
			r.Seal(errDone)
			last, ok := r.Drain()
			if last != tc.last || ok != tc.wantOK {
				t.Fatalf("Drain = %d, %v; want %d, %v", last, ok, tc.last, tc.wantOK)
			}
			if v, err := r.Take(); !errors.Is(err, errDone) {
				t.Fatalf("Take after Drain = %d, %v; want the seal's error", v, err)
			}
			if s := r.Stats(); s.Taken != int64(taken) || s.Available != 0 {
				t.Fatalf("Stats after Drain = %+v; want the %d taken, none waiting", s, taken)
			}
		})
	}
}

// TestDrainStress: takes race Drain, with takes in flight as it runs. Every
// value taken is at most the last Drain returns, that last was taken, and
// no take gets a value once Drain has returned. Draining the runs upwards
// instead of down fails it: a take then claims a value of a run above the
// one being drained.
func TestDrainStress(t *testing.T) {
	rounds := sizetest.Pick(2000, 300)
	rnd := rand.New(rand.NewPCG(3, 4))
	for round := range rounds {
		size := []int{4, 16, 64}[round%3]
		r := mustNew(t, Config{Size: size, RejectedTake: func(time.Duration) error {
			runtime.Gosched()
			return nil
		}})
		next := int64(1)
		put := func() {
			for {
				n, err := r.Put(Run{First: next, N: 1 + rnd.IntN(size)})
				if n == 0 || err != nil {
					return
				}
				next += int64(n)
			}
		}
		put()
		var drained atomic.Bool
		var wg sync.WaitGroup
		got := make([][]int64, 4)
		gate := make(chan struct{})
		for i := range got {
			wg.Go(func() {
				<-gate
				dst := make([]int64, 1+i)
				for {
					after := drained.Load()
					n, err := r.TakeN(dst)
					if err != nil {
						return
					}
					if after {
						t.Errorf("a take that began after Drain returned got %v", dst[:n])
						return
					}
					got[i] = append(got[i], dst[:n]...)
				}
			})
		}
		close(gate)
		for range rnd.IntN(4) {
			runtime.Gosched()
			put()
		}
		r.Seal(errDone)
		last, ok := r.Drain()
		drained.Store(true)
		wg.Wait()
		top := int64(0)
		for _, vals := range got {
			for _, v := range vals {
				top = max(top, v)
			}
		}
		if top != last || ok != (top > 0) {
			t.Fatalf("round %d (size %d, %d put): Drain = %d, %v; the last value taken was %d", round, size, next-1, last, ok, top)
		}
	}
}
