package padding

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/leaktest"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// counter is a Source of runs of batch consecutive values from 1 on, that
// fails with err once it has made limit values (limit 0: never).
type counter struct {
	batch int
	next  int64
	limit int64
	err   error
}

func (c *counter) Next(room int) (ringbuffer.Run, error) {
	if c.limit > 0 && c.next >= c.limit {
		return ringbuffer.Run{}, c.err
	}
	if room < c.batch {
		return ringbuffer.Run{}, nil
	}
	run := ringbuffer.Run{First: c.next + 1, N: c.batch}
	c.next += int64(c.batch)
	return run, nil
}

const batch = 16

// newExecutor returns an Executor filling a ring of size slots from src.
func newExecutor(t *testing.T, size int, src Source, interval time.Duration) (*ringbuffer.Ring, *Executor) {
	t.Helper()
	ring, err := ringbuffer.New(ringbuffer.Config{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Ring: ring, Source: src, Interval: interval})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return ring, e
}

// take takes n values and fails t unless they are prev+1, prev+2, ...
func take(t *testing.T, r *ringbuffer.Ring, n int, prev int64) int64 {
	t.Helper()
	for i := range n {
		v, err := r.Take()
		if err != nil {
			t.Fatalf("take %d of %d: %v", i, n, err)
		}
		if v != prev+1 {
			t.Fatalf("take %d of %d: %d, want %d", i, n, v, prev+1)
		}
		prev = v
	}
	return prev
}

func TestNewRejects(t *testing.T) {
	ring, err := ringbuffer.New(ringbuffer.Config{Size: 64})
	if err != nil {
		t.Fatal(err)
	}
	src := &counter{batch: batch}
	for _, tt := range []struct {
		name string
		cfg  Config
		text string // the field the error names
	}{
		{"no ring", Config{Source: src}, "padding: invalid config: Ring is nil: want both Ring and Source"},
		{"no source", Config{Ring: ring}, "padding: invalid config: Source is nil: want both Ring and Source"},
		{"negative interval", Config{Ring: ring, Source: src, Interval: -time.Second}, "padding: invalid config: Interval -1s: want 0 (off) or more"},
		{"neither", Config{}, "padding: invalid config: Ring and Source are nil: want both"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if e, err := New(tt.cfg); !errors.Is(err, uidgen.ErrConfig) || e != nil || !strings.HasPrefix(err.Error(), "padding: ") || !strings.Contains(err.Error(), tt.text) {
				t.Fatalf("New = %v, %v; want nil and an error wrapping %v, starting \"padding: \", that says %q", e, err, uidgen.ErrConfig, tt.text)
			}
		})
	}
	if src.next != 0 {
		t.Errorf("the source made %d values for configs that were refused", src.next)
	}
}

// TestFillsAtStart: New fills the ring with whole batches, in order.
func TestFillsAtStart(t *testing.T) {
	ring, e := newExecutor(t, 64, &counter{batch: batch}, 0)
	if rs := ring.Stats(); rs.Available != 64 || e.Fills() != 1 {
		t.Fatalf("after New: ring %+v, %d fills; want 4 runs put in one fill", rs, e.Fills())
	}
	take(t, ring, 64, 0)
}

// TestRefillsWhenAsked: a take below the threshold wakes the executor, which
// fills what has room and leaves a partial batch for later. The executor
// runs beside the takes, so a take between its Rearm and its look at the
// room may wake it once more, for nothing: the fills are 2 or more.
func TestRefillsWhenAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ring, e := newExecutor(t, 64, &counter{batch: batch}, 0)
		prev := take(t, ring, 40, 0) // below half: wakes the executor
		synctest.Wait()
		if rs := ring.Stats(); rs.Available != 24+2*batch || e.Fills() < 2 {
			t.Fatalf("after the wake-up: ring %+v, %d fills; want 2 more runs put after the first fill", rs, e.Fills())
		}
		take(t, ring, 24+2*batch, prev)
	})
}

// TestSourceErrorSeals: when the source fails, takes drain what was put, then
// fail with the source's error.
func TestSourceErrorSeals(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range []struct {
		name  string
		limit int64
	}{
		{"during the first fill", 2 * batch},
		{"while running", 6 * batch},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ring, _ := newExecutor(t, 4*batch, &counter{batch: batch, limit: tt.limit, err: boom}, 0)
			take(t, ring, int(tt.limit), 0)
			for range 2 {
				if v, err := ring.Take(); !errors.Is(err, boom) || !errors.Is(err, ringbuffer.ErrEmpty) || v != 0 {
					t.Fatalf("take past the source's end = %d, %v; want its error", v, err)
				}
			}
		})
	}
}

// TestSchedule: with an interval, the executor refills on its tick without
// being asked. Time here is synctest's: the test does not wait a minute.
func TestSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ring, e := newExecutor(t, 8*batch, &counter{batch: batch}, time.Minute)
		take(t, ring, batch, 0) // well above the threshold: no wake-up
		synctest.Wait()
		if rs := ring.Stats(); e.Fills() != 1 || rs.Available != rs.Size-batch {
			t.Fatalf("before the tick: %d fills, ring %+v; want no refill", e.Fills(), rs)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if rs := ring.Stats(); e.Fills() != 2 || rs.Available != rs.Size {
			t.Fatalf("after the tick: %d fills, ring %+v; want one more fill and a full ring", e.Fills(), rs)
		}
	})
}

// executorRun is the function the executor's goroutine runs.
const executorRun = "github.com/seed4d941b13/uidgen/padding.(*Executor).run"

// TestCloseStopsGoroutine: Close is idempotent and leaves no goroutine; the
// bubble would report the executor's goroutine as deadlocked otherwise.
func TestCloseStopsGoroutine(t *testing.T) {
	// An executor an earlier test closed may still be leaving its run,
	// after Close returned: wait for it, so that it does not leave during
	// the count below.
	if n := leaktest.Settle(executorRun, 5*time.Second); n > 0 {
		t.Fatalf("%d executor goroutines of earlier tests still run", n)
	}
	synctest.Test(t, func(t *testing.T) {
		before := leaktest.Running(executorRun)
		ring, e := newExecutor(t, 4*batch, &counter{batch: batch}, time.Second)
		synctest.Wait() // the goroutine has started and blocks
		if now := leaktest.Running(executorRun); now != before+1 {
			t.Fatalf("%d executor goroutines after New, want %d", now, before+1)
		}
		take(t, ring, 3*batch, 0) // below the threshold: wakes the executor
		for range 2 {
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if now := leaktest.Running(executorRun); now != before {
			t.Fatalf("%d executor goroutines after Close, want %d", now, before)
		}
	})
}

// pausing is a counter that pauses for an hour while hold is set.
type pausing struct {
	counter
	hold atomic.Bool
}

func (p *pausing) Next(room int) (ringbuffer.Run, error) {
	if p.hold.Load() {
		return ringbuffer.Run{}, &Pause{Retry: time.Hour, Why: errors.New("held")}
	}
	return p.counter.Next(room)
}

// TestWakeAfterPauseEnded: once a fill ends a pause (here the schedule's
// tick, long before the hour's retry), a take's wake-up fills the ring
// again at once, as it did before the pause.
func TestWakeAfterPauseEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &pausing{counter: counter{batch: batch}}
		ring, e := newExecutor(t, 4*batch, src, time.Minute)
		src.hold.Store(true)
		prev := take(t, ring, 40, 0) // wakes the executor, which pauses
		synctest.Wait()
		if e.Fills() != 2 {
			t.Fatalf("%d fills after a wake-up, want 2", e.Fills())
		}
		src.hold.Store(false)
		time.Sleep(time.Minute) // the tick's fill ends the pause
		synctest.Wait()
		if rs := ring.Stats(); e.Fills() != 3 || rs.Available != 24+2*batch {
			t.Fatalf("after the tick: %d fills, ring %+v; want 3, and 2 runs put", e.Fills(), rs)
		}
		take(t, ring, 2*batch, prev) // below the threshold again: wakes it
		synctest.Wait()
		if rs := ring.Stats(); e.Fills() < 4 || rs.Available <= 24 {
			t.Fatalf("after a wake-up once the pause ended: %d fills, ring %+v; want a 4th fill that put runs", e.Fills(), rs)
		}
	})
}

// backwards is a Source whose second run starts below its first's end.
type backwards struct{ runs int }

func (b *backwards) Next(room int) (ringbuffer.Run, error) {
	b.runs++
	if b.runs > 2 || room < batch {
		return ringbuffer.Run{}, nil
	}
	return ringbuffer.Run{First: int64(b.runs) * 10, N: batch}, nil // 10..25, then 20..35
}

// TestRunOutOfOrderSeals: a run that does not start above the last value
// put seals the ring, as a failing source does: takes drain what was put,
// then fail with ringbuffer.ErrOrder.
func TestRunOutOfOrderSeals(t *testing.T) {
	ring, _ := newExecutor(t, 4*batch, &backwards{}, 0)
	take(t, ring, batch, 9)
	if _, err := ring.Take(); !errors.Is(err, ringbuffer.ErrOrder) || !errors.Is(err, ringbuffer.ErrEmpty) {
		t.Fatalf("take past the first run = %v; want ErrEmpty and ErrOrder", err)
	}
}
