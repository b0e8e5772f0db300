package padding

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/fakeclock"
	"github.com/seed4d941b13/uidgen/internal/leak"
	"github.com/seed4d941b13/uidgen/ringbuffer"
	"github.com/seed4d941b13/uidgen/worker"
)

var epoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// fixture is an Executor over a ring of 2^boost seconds of 16 IDs each, on a
// hand-driven clock that reads epoch + now seconds.
type fixture struct {
	clock *fakeclock.Clock
	ring  *ringbuffer.Ring
	exec  *Executor
}

const seqBits, perSecond = 4, 16

func newFixture(t *testing.T, timeBits int, now time.Duration, boost int, interval time.Duration) *fixture {
	t.Helper()
	clock := fakeclock.New(epoch.Add(now))
	scheme, err := defaultgen.Config{
		TimeBits: timeBits, WorkerBits: 63 - timeBits - seqBits, SeqBits: seqBits,
		Epoch: epoch, Assigner: worker.Static(5), Clock: clock,
	}.Scheme(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ring, err := ringbuffer.New(ringbuffer.Config{Size: perSecond << boost})
	if err != nil {
		t.Fatal(err)
	}
	exec, err := New(Config{Ring: ring, Scheme: scheme, Interval: interval})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Close() })
	return &fixture{clock, ring, exec}
}

// take takes n IDs and fails t unless each is above the one before.
func (f *fixture) take(t *testing.T, n int, prev int64) int64 {
	t.Helper()
	for i := range n {
		id, err := f.ring.Take()
		if err != nil {
			t.Fatalf("take %d of %d: %v", i, n, err)
		}
		if id <= prev {
			t.Fatalf("take %d of %d: %d is not above %d", i, n, id, prev)
		}
		prev = id
	}
	return prev
}

func TestNewRejects(t *testing.T) {
	f := newFixture(t, 30, time.Hour, 1, 0)
	small, err := ringbuffer.New(ringbuffer.Config{Size: perSecond / 2})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		cfg  Config
		want error
	}{
		{"no ring", Config{Scheme: f.exec.scheme}, ErrConfig},
		{"no scheme", Config{Ring: f.ring}, ErrConfig},
		{"ring under a second", Config{Ring: small, Scheme: f.exec.scheme}, ErrRingTooSmall},
		{"negative interval", Config{Ring: f.ring, Scheme: f.exec.scheme, Interval: -time.Second}, ErrInterval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, err := New(tt.cfg); !errors.Is(err, tt.want) || e != nil {
				t.Fatalf("New = %v, %v; want nil, %v", e, err, tt.want)
			}
		})
	}
}

func TestFillsAtStart(t *testing.T) {
	f := newFixture(t, 30, 100*time.Second, 2, 0)
	s, rs := f.exec.Stats(), f.ring.Stats()
	if s != (Stats{Runs: 1, LastSecond: 103, Ahead: 3}) || rs.Available != 4*perSecond || rs.PutsRejected != 0 {
		t.Fatalf("after New: %+v, ring %+v; want seconds 100..103 put in one run", s, rs)
	}
	id, err := f.ring.Take()
	if err != nil {
		t.Fatal(err)
	}
	if id := f.exec.scheme.Parse(id); id.Time.Unix()-epoch.Unix() != 100 || id.Sequence != 0 || id.WorkerID != 5 {
		t.Fatalf("first ID %+v, want second 100, sequence 0, worker 5", id)
	}
}

// TestNoWastedSeconds: with the clock stopped, every second the executor
// borrows is put whole, so IDs taken plus IDs waiting are exactly the seconds
// put times IDs per second, and the lead over the clock stays within the
// bound the package promises. synctest.Wait lets the executor finish each
// fill before the test looks.
func TestNoWastedSeconds(t *testing.T) {
	for _, boost := range []int{1, 2, 3} {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t, 30, 1000*time.Second, boost, 0)
			size := int64(f.ring.Size())
			prev := int64(0)
			for taken := int64(0); taken < 5000; {
				prev = f.take(t, 37, prev)
				taken += 37
				synctest.Wait()
				s, rs := f.exec.Stats(), f.ring.Stats()
				if put := (s.LastSecond - 1000 + 1) * perSecond; taken+rs.Available != put || rs.PutsRejected != 0 {
					t.Fatalf("boost %d: %d taken + %d waiting != %d put in seconds 1000..%d", boost, taken, rs.Available, put, s.LastSecond)
				}
				if bound := (taken+size)/perSecond + 2; s.Ahead > bound {
					t.Fatalf("boost %d: %d seconds ahead after %d taken, bound %d", boost, s.Ahead, taken, bound)
				}
			}
		})
	}
}

// TestClockSteppedBack: a clock that goes back changes nothing, since the
// next second is max(last+1, now); one that jumps forward is followed.
func TestClockSteppedBack(t *testing.T) {
	f := newFixture(t, 30, 5000*time.Second, 1, 0)
	prev := f.take(t, 3*perSecond, 0)
	f.clock.Advance(-time.Hour)
	prev = f.take(t, 5*perSecond, prev)
	if s := f.exec.Stats(); s.Ahead < 3600 {
		t.Fatalf("%+v: with the clock an hour back, want over 3600 seconds ahead", s)
	}
	f.clock.Advance(2 * time.Hour)
	for f.exec.Stats().LastSecond < 5000+3600 {
		prev = f.take(t, perSecond, prev)
	}
	if s := f.exec.Stats(); s.Ahead > 2 {
		t.Fatalf("%+v: want the executor back on the clock, at most the ring's 2 seconds ahead", s)
	}
}

// TestTimeExhausted: the executor puts the last second the time bits hold,
// then seals the ring; takes drain it, then fail with ErrTimeExhausted.
func TestTimeExhausted(t *testing.T) {
	const timeBits, last = 10, 1<<10 - 1
	for _, tt := range []struct {
		name  string
		start int64 // the clock's second
		boost int
	}{
		{"during the first fill", last - 1, 2}, // puts last-1 and last
		{"while running", last - 6, 1},         // puts last-6 .. last
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, timeBits, time.Duration(tt.start)*time.Second, tt.boost, 0)
			f.take(t, int(last-tt.start+1)*perSecond, 0)
			for range 2 {
				id, err := f.ring.Take()
				if !errors.Is(err, defaultgen.ErrTimeExhausted) || !errors.Is(err, ringbuffer.ErrEmpty) || id != 0 {
					t.Fatalf("take past the last second = %d, %v; want ErrTimeExhausted", id, err)
				}
			}
			if s := f.exec.Stats(); s.LastSecond != last {
				t.Fatalf("%+v: want the last second %d put", s, last)
			}
		})
	}
}

// TestSchedule: with an interval, the executor refills on its tick without
// being asked. Time here is synctest's: the test does not wait a minute.
func TestSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, 30, 100*time.Second, 3, time.Minute)
		f.take(t, perSecond, 0) // well above the threshold: no wake-up
		synctest.Wait()
		if s, rs := f.exec.Stats(), f.ring.Stats(); s.Runs != 1 || rs.Available != rs.Size-perSecond {
			t.Fatalf("before the tick: %+v, ring %+v; want no refill", s, rs)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if s, rs := f.exec.Stats(), f.ring.Stats(); s.Runs != 2 || rs.Available != rs.Size {
			t.Fatalf("after the tick: %+v, ring %+v; want one more run and a full ring", s, rs)
		}
	})
}

// executorRun is the function the executor's goroutine runs.
const executorRun = "github.com/seed4d941b13/uidgen/padding.(*Executor).run"

// TestCloseStopsGoroutine: Close is idempotent and leaves no goroutine; the
// bubble would report the executor's goroutine as deadlocked otherwise.
func TestCloseStopsGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := leak.Running(executorRun)
		f := newFixture(t, 30, time.Hour, 1, time.Second)
		synctest.Wait() // the goroutine has started and blocks
		if now := leak.Running(executorRun); now != before+1 {
			t.Fatalf("%d executor goroutines after New, want %d", now, before+1)
		}
		f.take(t, 3*perSecond/2, 0) // below the threshold: wakes the executor
		for range 2 {
			if err := f.exec.Close(); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if now := leak.Running(executorRun); now != before {
			t.Fatalf("%d executor goroutines after Close, want %d", now, before)
		}
	})
}
