package cached

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/leaktest"
	"github.com/seed4d941b13/uidgen/internal/memleasetest"
	"github.com/seed4d941b13/uidgen/internal/scheme/schemetest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

func newGenerator(t testing.TB, cfg Config) *Generator {
	t.Helper()
	if cfg.Assigner == nil && cfg.Leaser == nil {
		cfg.Assigner = uidgen.Static(42)
	}
	g, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// countingAssigner counts the worker IDs it hands out.
type countingAssigner struct{ n atomic.Int64 }

func (a *countingAssigner) AssignWorkerID(context.Context) (int64, error) { return a.n.Add(1), nil }

// TestNewRejects: each bad field is one clear error, prefixed once, that
// names the value; and no bad field costs a worker ID (with a database, a
// row in WORKER_NODE).
func TestNewRejects(t *testing.T) {
	sonyflakeLayout, err := uidgen.NamedLayout("sonyflake")
	if err != nil {
		t.Fatal(err)
	}
	baidu, err := uidgen.NamedLayout("baidu")
	if err != nil {
		t.Fatal(err)
	}
	now := clocktest.New(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	tests := []struct {
		name string
		cfg  Config
		want error
		text string
	}{
		{"no assigner or leaser", Config{}, uidgen.ErrConfig, "Assigner and Leaser are both nil: want exactly one, Assigner (uidgen.Static(id) for one process, a worker.NewDisposable for a fleet) or Leaser (a worker.NewLeased)"},
		{"assigner and leaser", Config{Leaser: &memleasetest.Leaser{ID: 1}}, uidgen.ErrConfig,
			"Assigner *cached.countingAssigner and Leaser *memleasetest.Leaser are both set: want exactly one"},
		{"epoch in the future", Config{Layout: idtest.LayoutFrom(t, uidgen.DefaultLayout().Bits().Spec(), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)), Clock: now},
			bits.ErrLayout, "epoch 2027-01-01 00:00:00 UTC is in the future"},
		{"epoch spent", Config{Layout: baidu, Clock: now}, uidgen.ErrTimeExhausted, "ran out at 2024-11-20 21:24:16 UTC"},
		{"negative boost", Config{BoostPower: -1}, uidgen.ErrConfig, "BoostPower -1 with 13 sequence bits"},
		{"ring too large", Config{BoostPower: 12}, uidgen.ErrConfig, "BoostPower 12 with 13 sequence bits makes a ring of 2^25 IDs"},
		{"padding factor 100", Config{PaddingFactor: 100}, uidgen.ErrConfig, "PaddingFactor 100, want 1 to 99, or 0 for 50"},
		{"negative padding factor", Config{PaddingFactor: -1}, uidgen.ErrConfig, "PaddingFactor -1, want 1 to 99"},
		{"default boost too large", Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 11, SeqBits: 22})}, uidgen.ErrConfig,
			"BoostPower 0 (3 by default) with 22 sequence bits makes a ring of 2^25 IDs: want BoostPower 1 to 2"},
		{"MaxAhead under a tick", Config{Layout: sonyflakeLayout, MaxAhead: 5 * time.Millisecond}, uidgen.ErrConfig, "MaxAhead 5ms is shorter than the layout's tick, 10ms"},
		{"negative MaxAhead", Config{MaxAhead: -time.Second}, uidgen.ErrConfig, "MaxAhead -1s, want 0 (unbounded) or more"},
		{"MaxLag under a second", Config{MaxLag: 500 * time.Millisecond}, uidgen.ErrConfig, "MaxLag 500ms, want a second or more"},
		{"negative After", Config{After: -5}, uidgen.ErrConfig, "After -5: want 0 (none) or more"},
		{"After in the last tick", Config{After: math.MaxInt64}, uidgen.ErrTimeExhausted, fmt.Sprintf("After ID %d", int64(math.MaxInt64))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a countingAssigner
			if tt.name != "no assigner or leaser" {
				tt.cfg.Assigner = &a
			}
			g, err := New(t.Context(), tt.cfg)
			if !errors.Is(err, tt.want) || g != nil {
				t.Fatalf("New = %v, %v; want nil, %v", g, err, tt.want)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "cached: ") || strings.Count(msg, ": ") > 4 || !strings.Contains(msg, tt.text) {
				t.Errorf("error %q: want one line starting \"cached: \" that says %q", msg, tt.text)
			}
			if got := a.n.Load(); got != 0 {
				t.Fatalf("%d worker IDs assigned, want none", got)
			}
			if l, ok := tt.cfg.Leaser.(*memleasetest.Leaser); ok {
				if lease, _ := l.Lease(); lease != nil {
					t.Fatal("a worker ID leased, want none")
				}
			}
		})
	}
}

// TestErrorsNameEachPackageOnce: an error that crosses the ring, the padder
// and the layout still reads with one prefix.
func TestErrorsNameEachPackageOnce(t *testing.T) {
	g, _ := timeFixture(t, 1023)
	if _, err := g.NextIDs(make([]int64, 1<<13)); err != nil {
		t.Fatal(err)
	}
	_, err := g.NextID()
	want := "cached: next ID: ring is empty: time bits exhausted: 1024 seconds since epoch 2025-01-01 00:00:00 UTC is over the maximum 1023 of 10 time bits, which ran out at "
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("NextID past the time bits = %v, want %q...", err, want)
	}
}

// baiduSize is the size of Baidu's CachedUidGeneratorTest, shrunk where the
// race detector or -short would make it slow.
func baiduSize() int { return sizetest.Pick(7_000_000, 200_000) }

// TestBaidu ports Baidu's CachedUidGeneratorTest: 7,000,000 UIDs serially
// and across 2×GOMAXPROCS goroutines, and across 64; all unique, positive
// and parseable, increasing within each goroutine, and no take failed.
func TestBaidu(t *testing.T) {
	total := baiduSize()
	for _, goroutines := range []int{1, 2 * runtime.GOMAXPROCS(0), 64} {
		t.Run(name(goroutines), func(t *testing.T) {
			g := newGenerator(t, Config{})
			ids, err := idtest.Collect(goroutines, total/goroutines, g.NextID)
			if err != nil {
				t.Fatal(err)
			}
			n := idtest.Check(t, g, ids)
			s := g.Stats()
			if s.TakesFailed != 0 {
				t.Fatalf("Stats %+v: want no failed take, no rejected put", s)
			}
			t.Logf("%d IDs from %d goroutines: %+v", n, goroutines, s)
		})
	}
}

func name(goroutines int) string {
	if goroutines == 1 {
		return "serial"
	}
	return fmt.Sprintf("goroutines=%d", goroutines)
}

// TestNextIDs mixes batch takes with single ones across goroutines.
func TestNextIDs(t *testing.T) {
	g := newGenerator(t, Config{})
	const goroutines, batches = 4, 2000
	ids := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			dst := make([]int64, 1+i*37) // 1, 38, 75, 112 per call
			for range batches {
				if n, err := g.NextIDs(dst); n != len(dst) || err != nil {
					t.Errorf("NextIDs(%d) = %d, %v", len(dst), n, err)
					return
				}
				ids[i] = append(ids[i], dst...)
				id, err := g.NextID()
				if err != nil {
					t.Error(err)
					return
				}
				ids[i] = append(ids[i], id)
			}
		})
	}
	wg.Wait()
	idtest.Check(t, g, ids)
}

// TestClose: Close is idempotent, NextID and NextIDs fail cleanly after it,
// and it leaves no goroutine: synctest.Test fails a bubble whose goroutines
// outlive it, and the padding goroutines come back to where they were.
func TestClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const padder = "github.com/seed4d941b13/uidgen/padding.(*Executor).run"
		before := leaktest.Running(padder)
		g := newGenerator(t, Config{Clock: clocktest.New(uidgen.DefaultLayout().Epoch().Add(time.Hour))})
		synctest.Wait() // the goroutine has started and blocks
		if now := leaktest.Running(padder); now != before+1 {
			t.Fatalf("%d padding goroutines after New, %d before", now, before)
		}
		for range 40_000 { // below the threshold: the padder refills
			if _, err := g.NextID(); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			if err := g.Close(); err != nil {
				t.Fatalf("Close = %v", err)
			}
		}
		if _, err := g.NextID(); !errors.Is(err, uidgen.ErrClosed) {
			t.Fatalf("NextID after Close = %v, want uidgen.ErrClosed", err)
		}
		if n, err := g.NextIDs(make([]int64, 3)); n != 0 || !errors.Is(err, uidgen.ErrClosed) {
			t.Fatalf("NextIDs after Close = %d, %v, want uidgen.ErrClosed", n, err)
		}
		synctest.Wait()
		if now := leaktest.Running(padder); now != before {
			t.Fatalf("%d padding goroutines after Close, %d before New", now, before)
		}
	})
}

// timeFixture is a generator whose 10 time bits end at second 1023, on a
// clock that reads the given second.
func timeFixture(t *testing.T, second int64) (*Generator, *clocktest.Clock) {
	schemetest.WholeSeconds(t)
	clock := clocktest.New(uidgen.DefaultLayout().Epoch().Add(time.Duration(second) * time.Second))
	g := newGenerator(t, Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 10, WorkerBits: 40, SeqBits: 13}), Clock: clock, BoostPower: 1})
	return g, clock
}

// TestTimeExhausted: the generator hands out every UID of the last second
// the time bits hold, then fails with ErrTimeExhausted: never a wrapped
// timestamp, never a negative UID.
func TestTimeExhausted(t *testing.T) {
	g, _ := timeFixture(t, 1020)
	var ids []int64
	for {
		id, err := g.NextID()
		if err != nil {
			if !errors.Is(err, uidgen.ErrTimeExhausted) {
				t.Fatalf("after %d IDs: %v, want ErrTimeExhausted", len(ids), err)
			}
			break
		}
		ids = append(ids, id)
	}
	if len(ids) != 4<<13 {
		t.Fatalf("%d IDs before the time bits ran out, want 4 seconds (1020..1023) of 8192", len(ids))
	}
	idtest.Check(t, g, [][]int64{ids})
	if last := g.Layout().Parse(ids[len(ids)-1]); last.Sequence != 1<<13-1 {
		t.Fatalf("last ID %+v, want the last sequence of the last second", last)
	}
	if _, err := g.NextID(); !errors.Is(err, uidgen.ErrTimeExhausted) {
		t.Fatalf("NextID again = %v, want ErrTimeExhausted", err)
	}
}

// TestSecondsAhead: with the clock stopped, Stats reports the seconds
// borrowed, within the bound padding promises; a clock stepped back only
// raises the count; one that catches up brings it back down. synctest.Wait
// lets the padder finish before each look.
func TestSecondsAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, clock := timeFixture(t, 100)
		if s := g.Stats(); int64(s.Ahead/time.Second) != 1 || s.Ahead != time.Second || s.Available != 2<<13 || s.Fills != 1 {
			t.Fatalf("after New: %+v, want seconds 100 and 101 put, one ahead", s)
		}
		const taken = 10 << 13
		if _, err := g.NextIDs(make([]int64, taken)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		s := g.Stats()
		if bound := (taken+s.Size)>>13 + 2; int64(s.Ahead/time.Second) < 10 || int64(s.Ahead/time.Second) > bound {
			t.Fatalf("after 10 seconds of IDs: %+v, want 10 to %d seconds ahead", s, bound)
		}
		clock.Advance(-time.Minute)
		if s2 := g.Stats(); int64(s2.Ahead/time.Second) != int64(s.Ahead/time.Second)+60 {
			t.Fatalf("clock a minute back: %+v, want %d ahead", s2, int64(s.Ahead/time.Second)+60)
		}
		clock.Advance(time.Minute + 20*time.Second)
		if s := g.Stats(); int64(s.Ahead/time.Second) != 0 || s.Ahead != 0 {
			t.Fatalf("clock past the padder: %+v, want 0 ahead", s)
		}
	})
}

// TestAheadInTicks: in a layout of millisecond ticks, with the clock
// stopped, Stats.Ahead is the milliseconds borrowed, whole ticks of 4,096
// IDs put beyond the clock's, while SecondsAhead, in whole seconds, says 0.
func TestAheadInTicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		schemetest.WholeSeconds(t)
		layout, err := uidgen.NamedLayout("twitter")
		if err != nil {
			t.Fatal(err)
		}
		clock := clocktest.New(layout.Epoch().Add(100 * 24 * time.Hour))
		g := newGenerator(t, Config{Layout: layout, Clock: clock})
		if _, err := g.NextIDs(make([]int64, 10<<12)); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		s := g.Stats()
		// The ticks put, whole from sequence 0: the clock's and those ahead.
		put := (s.Taken + s.Available) >> 12
		if s.Ahead != time.Duration(put-1)*time.Millisecond || s.Ahead < 10*time.Millisecond || int64(s.Ahead/time.Second) != 0 {
			t.Fatalf("after 10 ms of IDs: %+v, want %d ms ahead (%d ticks put), and 0 whole seconds", s, put-1, put)
		}
		clock.Advance(time.Second)
		if s := g.Stats(); s.Ahead != 0 {
			t.Fatalf("clock past the padder: %+v, want 0 ahead", s)
		}
	})
}

// TestStatsAfterNew: Stats right after New. In the bubble the padder's
// once-a-second tick cannot come between them, so Fills is New's alone.
// No load has forced a tick ahead yet: the ring holds the clock's second
// and the next.
func TestStatsAfterNew(t *testing.T) {
	schemetest.WholeSeconds(t)
	synctest.Test(t, func(t *testing.T) {
		g := newGenerator(t, Config{Clock: clocktest.New(uidgen.DefaultLayout().Epoch().Add(time.Hour))})
		want := Stats{Stats: ringbuffer.Stats{Size: 1 << 16, Available: 2 << 13}, Fills: 1, Ahead: time.Second}
		if s := g.Stats(); s != want {
			t.Fatalf("Stats = %+v, want %+v", s, want)
		}
	})
}

// TestPadderTicks: under MaxLag the padder wakes once a second, with no take
// to ask it, to drop the IDs gone stale; with a negative MaxLag (Baidu's)
// nothing but a take wakes it.
func TestPadderTicks(t *testing.T) {
	for _, tt := range []struct {
		maxLag time.Duration
		fills  int64
	}{
		{0, 11}, // defaultMaxLag: New's fill and one a second
		{5 * time.Second, 11},
		{-1, 1}, // New's fill alone
	} {
		t.Run(fmt.Sprint(tt.maxLag), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newGenerator(t, Config{MaxLag: tt.maxLag, Clock: clocktest.New(uidgen.DefaultLayout().Epoch().Add(time.Hour))})
				time.Sleep(10*time.Second + time.Millisecond)
				synctest.Wait()
				if s := g.Stats(); s.Fills != tt.fills {
					t.Fatalf("Fills after 10 idle seconds = %d, want %d", s.Fills, tt.fills)
				}
			})
		})
	}
}

// TestMemory: the default ring costs 16 bytes a slot and a small fixed part
// (the padder's one second of IDs, the ring's padded counters).
func TestMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g := newGenerator(t, Config{})
	runtime.GC()
	runtime.ReadMemStats(&after)
	size := g.Stats().Size
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("ring of %d slots: heap grew by %d bytes, %.2f per slot", size, heap, float64(heap)/float64(size))
	if limit := size*16 + 128<<10; heap > limit {
		t.Fatalf("heap grew by %d bytes for %d slots, want at most %d", heap, size, limit)
	}
	runtime.KeepAlive(g)
}

// TestNeverUIDZero: worker 0 in the epoch's first second would make UID 0
// at sequence 0; the padder leaves it out of that second.
func TestNeverUIDZero(t *testing.T) {
	schemetest.WholeSeconds(t)
	g := newGenerator(t, Config{Assigner: uidgen.Static(0), Clock: clocktest.New(uidgen.DefaultLayout().Epoch())})
	ids := make([]int64, 8192)
	if _, err := g.NextIDs(ids); err != nil {
		t.Fatal(err)
	}
	if ids[0] != 1 {
		t.Fatalf("first UID %d, want 1: sequence 0 of second 0 is UID 0", ids[0])
	}
	if p := g.Layout().Parse(ids[8191]); p.Sequence != 0 || p.Time.Unix() != g.Layout().Epoch().Unix()+1 {
		t.Fatalf("8192nd UID %+v, want sequence 0 of the next second", p)
	}
	idtest.Check(t, g, [][]int64{ids})
}

// TestNextIDsErrorHandsBackNoStrayID: takes read slots before they claim
// them, so a batch cut short by an error could leave other callers' IDs in
// dst past what it filled. Racing batches run the ring dry; each failed
// batch must leave zeros past its count, and every counted ID must be
// unique.
func TestNextIDsErrorHandsBackNoStrayID(t *testing.T) {
	g, _ := timeFixture(t, 1000) // 24 seconds of IDs, then the time bits end
	const goroutines = 4
	ids := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			dst := make([]int64, 1000)
			for {
				for j := range dst {
					dst[j] = -1
				}
				n, err := g.NextIDs(dst)
				ids[i] = append(ids[i], dst[:n]...)
				if err != nil {
					if !errors.Is(err, uidgen.ErrTimeExhausted) {
						t.Errorf("NextIDs: %v, want ErrTimeExhausted", err)
					}
					for j, id := range dst[n:] {
						if id != 0 {
							t.Errorf("dst[%d] = %d past the %d IDs filled, want 0", n+j, id, n)
							return
						}
					}
					return
				}
			}
		})
	}
	wg.Wait()
	if n := idtest.Check(t, g, ids); n != 24<<13 {
		t.Fatalf("%d IDs before the time bits ran out, want %d", n, 24<<13)
	}
}

// TestLayouts: in every named layout, millisecond, 10 ms and no-sign-bit
// ones among them, the IDs are unique, increase, carry the worker ID and the
// time, and step by one sequence within a tick.
func TestLayouts(t *testing.T) {
	idtest.CheckLayouts(t, sizetest.Pick(200_000, 20_000), func(t *testing.T, layout uidgen.Layout) (idtest.Generator, error) {
		g, err := New(t.Context(), Config{Layout: layout, Assigner: uidgen.Static(7)})
		if err == nil {
			t.Cleanup(func() { g.Close() })
		}
		return g, err
	})
}

// TestAfterAnHourAhead: with After an ID an hour ahead of the clock, as an
// older fleet that borrowed ahead leaves, every ID is above it, from the
// tick after its; with MaxAhead New waits for the clock under its ctx, and
// says why, naming the ID.
func TestAfterAnHourAhead(t *testing.T) {
	layout, err := uidgen.NamedLayout("twitter")
	if err != nil {
		t.Fatal(err)
	}
	hour := time.Hour.Milliseconds()
	after := layout.Bits().Allocate(time.Since(layout.Epoch()).Milliseconds()+hour, 1023, 4095)
	g := newGenerator(t, Config{Layout: layout, After: after})
	ids, err := idtest.Collect(4, 10_000, g.NextID)
	if err != nil {
		t.Fatal(err)
	}
	idtest.Check(t, g, ids)
	first := ids[0][0]
	for _, got := range ids {
		if got[0] <= after {
			t.Fatalf("ID %d is not above After %d", got[0], after)
		}
		first = min(first, got[0])
	}
	if p, a := g.Layout().Parse(first), g.Layout().Parse(after); p.Time.Sub(a.Time) != layout.Tick() {
		t.Fatalf("the first ID is of %v, After of %v: want the tick after After's", p.Time, a.Time)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err = New(ctx, Config{Layout: layout, After: after, MaxAhead: time.Minute, Assigner: uidgen.Static(1)})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), fmt.Sprint(after)) {
		t.Fatalf("New with After an hour ahead and MaxAhead a minute: %v, want %v naming After", err, context.DeadlineExceeded)
	}
}

// TestTickRingSize: a layout of ticks under a second gets a ring of at least
// 2^16 slots by default, as the default layout has, and the BoostPower it
// is given otherwise; per-second layouts keep 2^SeqBits << 3.
func TestTickRingSize(t *testing.T) {
	twitter, err := uidgen.NamedLayout("twitter")
	if err != nil {
		t.Fatal(err)
	}
	sony, err := uidgen.NamedLayout("sonyflake")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cfg  Config
		size int64
	}{
		{Config{Layout: twitter}, 1 << 16},
		{Config{Layout: sony}, 1 << 16},
		{Config{Layout: twitter, BoostPower: 1}, 1 << 13},
		{Config{}, 1 << 16},
		{Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 29, SeqBits: 4})}, 1 << 7},
	} {
		if size := newGenerator(t, tt.cfg).Stats().Size; size != tt.size {
			t.Errorf("%+v: a ring of %d slots, want %d", tt.cfg, size, tt.size)
		}
	}
}
