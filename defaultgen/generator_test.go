package defaultgen_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/memleasetest"
	"github.com/seed4d941b13/uidgen/internal/scheme/schemetest"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// start is where the fake clocks start: 0.3 s into a second, a year after
// the default epoch.
var start = uidgen.DefaultLayout().Epoch().AddDate(1, 0, 0).Add(300 * time.Millisecond)

func newGen(t *testing.T, cfg defaultgen.Config) *defaultgen.Generator {
	t.Helper()
	if cfg.Assigner == nil && cfg.Leaser == nil {
		cfg.Assigner = uidgen.Static(7)
	}
	g, err := defaultgen.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g
}

// TestBaiduDefaultUidGenerator ports Baidu's DefaultUidGeneratorTest: 100,000
// IDs serially and across 2×GOMAXPROCS goroutines, all unique, positive,
// parseable; and each goroutine's IDs in increasing order. It runs on the real
// clock with a million IDs a second, and on a fake clock with the default
// layout, where it crosses many seconds.
func TestBaiduDefaultUidGenerator(t *testing.T) {
	n := sizetest.Pick(100_000, 10_000)
	configs := map[string]defaultgen.Config{
		"system clock, 20 sequence bits": {Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 13, SeqBits: 20})},
		"fake clock, default layout":     {Clock: clocktest.New(start)},
	}
	for name, cfg := range configs {
		t.Run(name+"/serial", func(t *testing.T) {
			g := newGen(t, cfg)
			ids, err := idtest.Collect(1, n, g.NextID)
			if err != nil {
				t.Fatal(err)
			}
			if got := idtest.Check(t, g, ids); got != n {
				t.Fatalf("checked %d IDs, want %d", got, n)
			}
		})
		t.Run(name+"/parallel", func(t *testing.T) {
			g := newGen(t, cfg)
			goroutines := 2 * runtime.GOMAXPROCS(0)
			ids, err := idtest.Collect(goroutines, n/goroutines, g.NextID)
			if err != nil {
				t.Fatal(err)
			}
			idtest.Check(t, g, ids)
		})
	}
}

func TestSpentSequenceSleepsToTheNextSecond(t *testing.T) {
	schemetest.WholeSeconds(t)
	clock := clocktest.New(start)
	g := newGen(t, defaultgen.Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 40, WorkerBits: 15, SeqBits: 8}), Clock: clock})
	var last int64
	for i := range 256 {
		id, err := g.NextID()
		if err != nil {
			t.Fatal(err)
		}
		if seq := g.Layout().Parse(id).Sequence; seq != int64(i) {
			t.Fatalf("ID %d has sequence %d", i, seq)
		}
		last = id
	}
	if calls, _ := clock.Slept(); calls != 0 {
		t.Fatalf("slept %d times within one second", calls)
	}
	id, err := g.NextID()
	if err != nil {
		t.Fatal(err)
	}
	// One sleep, exactly to the boundary: 0.7 s from 0.3 s into the second.
	if calls, slept := clock.Slept(); calls != 1 || slept != 700*time.Millisecond {
		t.Fatalf("slept %d times for %v, want once for 700ms", calls, slept)
	}
	if s := g.Stats(); s != (defaultgen.Stats{Taken: 257, TakesWaited: 1}) {
		t.Fatalf("Stats = %+v, want 257 taken, one of them after waiting", s)
	}
	p, pl := g.Layout().Parse(id), g.Layout().Parse(last)
	if p.Sequence != 0 || p.Time.Sub(pl.Time) != time.Second || id <= last {
		t.Fatalf("after the spent second got %+v, last was %+v", p, pl)
	}
}

func TestClockSteppedBackAFewSeconds(t *testing.T) {
	schemetest.WholeSeconds(t)
	clock := clocktest.New(start)
	g := newGen(t, defaultgen.Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 40, WorkerBits: 15, SeqBits: 8}), Clock: clock})
	next := func() (int64, error) {
		// Step back 3 s a third of the way through; later calls see the
		// clock only move by the generator's own sleeps.
		if id, err := g.NextID(); err != nil || g.Layout().Parse(id).Sequence != 80 {
			return id, err
		}
		clock.Advance(-3 * time.Second)
		return g.NextID()
	}
	ids, err := idtest.Collect(1, 1000, next)
	if err != nil {
		t.Fatalf("a 3 s step back must not fail: %v", err)
	}
	idtest.Check(t, g, ids)
	if _, slept := clock.Slept(); slept < 3*time.Second {
		t.Fatalf("slept %v, want the generator to wait out the 3 s step", slept)
	}
}

func TestClockSteppedBackAnHour(t *testing.T) {
	schemetest.WholeSeconds(t)
	clock := clocktest.New(start)
	g := newGen(t, defaultgen.Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 40, WorkerBits: 15, SeqBits: 8}), Clock: clock})
	first, err := g.NextID()
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(-time.Hour)
	ids := []int64{first}
	for {
		id, err := g.NextID()
		if err != nil {
			if !errors.Is(err, uidgen.ErrClockBackwards) {
				t.Fatalf("got %v, want ErrClockBackwards", err)
			}
			if !strings.Contains(err.Error(), "refusing to wait more than 5s") {
				t.Errorf("error %q does not say the limit", err)
			}
			break
		}
		ids = append(ids, id)
	}
	// The last second's sequence is used up before giving up, never reused.
	if len(ids) != 256 {
		t.Fatalf("got %d IDs before the error, want the 256 of the last second", len(ids))
	}
	idtest.Check(t, g, [][]int64{ids})
	if calls, _ := clock.Slept(); calls != 0 {
		t.Fatalf("slept %d times; an hour is not worth waiting for", calls)
	}
}

func TestTimeBitsExhaustedNeverWraps(t *testing.T) {
	schemetest.WholeSeconds(t)
	// 8 time bits: 255 seconds after the epoch is the last.
	epoch := start.Truncate(time.Second).Add(-255 * time.Second)
	clock := clocktest.New(start)
	g := newGen(t, defaultgen.Config{Layout: idtest.LayoutFrom(t, bits.Spec{TimeBits: 8, WorkerBits: 47, SeqBits: 8}, epoch), Clock: clock})
	var ids []int64
	var err error
	for err == nil {
		var id int64
		if id, err = g.NextID(); err == nil {
			ids = append(ids, id)
		}
	}
	if !errors.Is(err, uidgen.ErrTimeExhausted) || len(ids) != 256 {
		t.Fatalf("after %d IDs got %v, want ErrTimeExhausted after 256", len(ids), err)
	}
	for _, s := range []string{"256 seconds", "maximum 255 of 8 time bits"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	idtest.Check(t, g, [][]int64{ids})
	clock.Advance(time.Hour)
	if _, err := g.NextID(); !errors.Is(err, uidgen.ErrTimeExhausted) {
		t.Fatalf("an hour later got %v, want ErrTimeExhausted", err)
	}
}

type failingAssigner struct{ err error }

func (a failingAssigner) AssignWorkerID(context.Context) (int64, error) { return 0, a.err }

func TestNewRejectsBadConfig(t *testing.T) {
	now := clocktest.New(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	boom := errors.New("boom")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		cfg     defaultgen.Config
		want    error
		message []string
	}{
		{"no assigner", nil, defaultgen.Config{},
			uidgen.ErrConfig, []string{"Assigner and Leaser are both nil: want exactly one", "Assigner (uidgen.Static(id)", "or Leaser (a worker.NewLeased)"}},
		{"assigner and leaser", nil, defaultgen.Config{Assigner: uidgen.Static(1), Leaser: &memleasetest.Leaser{ID: 1}},
			uidgen.ErrConfig, []string{"defaultgen: ", "Assigner uidgen.static and Leaser *memleasetest.Leaser are both set: want exactly one"}},
		{"epoch in the future", nil, defaultgen.Config{Layout: idtest.LayoutFrom(t, uidgen.DefaultLayout().Bits().Spec(), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)),
			Assigner: uidgen.Static(1), Clock: now},
			bits.ErrLayout, []string{"epoch 2027-01-01 00:00:00 UTC is in the future", "now 2026-11-22 12:00:00 UTC"}},
		{"Baidu's exhausted default", nil, defaultgen.Config{
			Layout:   idtest.LayoutFrom(t, bits.Spec{TimeBits: 28, WorkerBits: 22, SeqBits: 13}, time.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC)),
			Assigner: uidgen.Static(1), Clock: now},
			uidgen.ErrTimeExhausted, []string{"epoch 2016-05-20", "maximum 268435455 of 28 time bits", "ran out at 2024-11-20"}},
		{"worker ID over the maximum", nil, defaultgen.Config{Assigner: uidgen.Static(1 << 20), Clock: now},
			uidgen.ErrWorkerIDRange, []string{"worker ID 1048576 is not in [0, 1048575]", "20 worker bits"}},
		{"negative static worker ID", nil, defaultgen.Config{Assigner: uidgen.Static(-1), Clock: now},
			uidgen.ErrWorkerIDRange, []string{"worker ID -1 is not in [0, 1048575]"}},
		{"assigner fails", nil, defaultgen.Config{Assigner: failingAssigner{boom}, Clock: now},
			boom, []string{"assign worker ID"}},
		{"context canceled", canceled, defaultgen.Config{Assigner: uidgen.Static(1), Clock: now},
			context.Canceled, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			g, err := defaultgen.New(ctx, tt.cfg)
			if !errors.Is(err, tt.want) {
				t.Fatalf("New = %v, %v; want %v", g, err, tt.want)
			}
			for _, s := range tt.message {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}

// TestDefaults: the zero Config is the default layout and epoch.
func TestDefaults(t *testing.T) {
	g := newGen(t, defaultgen.Config{})
	if l := g.Layout(); l.String() != uidgen.DefaultLayout().String() {
		t.Errorf("default layout %v, want %v", l, uidgen.DefaultLayout())
	}
	if g.WorkerID() != 7 {
		t.Errorf("WorkerID = %d, want 7", g.WorkerID())
	}
}

func TestParseUIDIsBaidusString(t *testing.T) {
	schemetest.WholeSeconds(t)
	clock := clocktest.New(time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC))
	g := newGen(t, defaultgen.Config{Clock: clock})
	g.NextID()
	id, err := g.NextID()
	if err != nil {
		t.Fatal(err)
	}
	local := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC).Local().Format("2006-01-02 15:04:05")
	want := fmt.Sprintf(`{"UID":"%d","timestamp":"%s","workerId":"7","sequence":"1"}`, id, local)
	if got := g.Layout().ParseUID(id); got != want {
		t.Fatalf("ParseUID = %s, want %s", got, want)
	}
	// Baidu's string is valid JSON too.
	var m map[string]string
	if err := json.Unmarshal([]byte(g.Layout().ParseUID(id)), &m); err != nil || m["UID"] != fmt.Sprint(id) {
		t.Fatalf("ParseUID is not Baidu's JSON: %v %v", m, err)
	}
}

// TestNeverUIDZero: worker 0 in the epoch's first second would make UID 0
// at sequence 0; that one UID is skipped, in that second only.
func TestNeverUIDZero(t *testing.T) {
	schemetest.WholeSeconds(t)
	clock := clocktest.New(uidgen.DefaultLayout().Epoch())
	g := newGen(t, defaultgen.Config{Assigner: uidgen.Static(0), Clock: clock, Layout: idtest.Layout(t, bits.Spec{TimeBits: 40, WorkerBits: 15, SeqBits: 8})})
	ids, err := idtest.Collect(1, 255+256, g.NextID)
	if err != nil {
		t.Fatal(err)
	}
	if ids[0][0] != 1 {
		t.Fatalf("first UID %d, want 1: sequence 0 of second 0 is UID 0", ids[0][0])
	}
	if next := g.Layout().Parse(ids[0][255]); next.Sequence != 0 || next.Time.Unix() != g.Layout().Epoch().Unix()+1 {
		t.Fatalf("256th UID %+v, want sequence 0 of the next second", next)
	}
	idtest.Check(t, g, ids)
}

// TestLayouts: in every named layout, millisecond, 10 ms and no-sign-bit
// ones among them, the IDs are unique, increase, carry the worker ID and the
// time, and step by one sequence within a tick; a tick's spent sequence is
// waited out to the next tick (8,000 IDs: two ticks of Twitter's layout,
// about one second of uidgen's).
func TestLayouts(t *testing.T) {
	idtest.CheckLayouts(t, 1_000, func(t *testing.T, layout uidgen.Layout) (idtest.Generator, error) {
		g, err := defaultgen.New(t.Context(), defaultgen.Config{Layout: layout, Assigner: uidgen.Static(7)})
		if err == nil {
			t.Cleanup(func() { g.Close() })
		}
		return g, err
	})
}

// TestAfter: with After an ID a few ticks ahead of the clock every ID is
// above it; an hour ahead is beyond what NextID waits for the clock, and
// New fails with uidgen.ErrClockBackwards naming the ID.
func TestAfter(t *testing.T) {
	layout, err := uidgen.NamedLayout("bwmarrin")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Since(layout.Epoch()).Milliseconds()
	after := layout.Bits().Allocate(now+20, 1023, 4095)
	g, err := defaultgen.New(t.Context(), defaultgen.Config{Layout: layout, After: after, Assigner: uidgen.Static(3)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ids, err := idtest.Collect(4, 3_000, g.NextID)
	if err != nil {
		t.Fatal(err)
	}
	idtest.Check(t, g, ids)
	for _, got := range ids {
		if got[0] <= after {
			t.Fatalf("ID %d is not above After %d", got[0], after)
		}
	}

	after = layout.Bits().Allocate(now+time.Hour.Milliseconds(), 0, 0)
	_, err = defaultgen.New(t.Context(), defaultgen.Config{Layout: layout, After: after, Assigner: uidgen.Static(3)})
	if !errors.Is(err, uidgen.ErrClockBackwards) || !strings.Contains(err.Error(), fmt.Sprint(after)) {
		t.Fatalf("New with After an hour ahead: %v, want %v naming %d", err, uidgen.ErrClockBackwards, after)
	}
}

// TestAheadInTicks: with After half a second ahead of a stopped clock, in
// a layout of millisecond ticks, Stats.Ahead is the 501 ms the first UID
// borrowed, while SecondsAhead, in whole seconds, says 0.
func TestAheadInTicks(t *testing.T) {
	layout, err := uidgen.NamedLayout("bwmarrin")
	if err != nil {
		t.Fatal(err)
	}
	now := layout.Epoch().Add(100 * 24 * time.Hour)
	after := layout.Bits().Allocate(layout.TickOf(now)+500, 1023, 4095)
	g := newGen(t, defaultgen.Config{Layout: layout, After: after, Clock: clocktest.New(now)})
	defer g.Close()
	if _, err := g.NextID(); err != nil {
		t.Fatal(err)
	}
	if s := g.Stats(); s.Ahead != 501*time.Millisecond || int64(s.Ahead/time.Second) != 0 {
		t.Fatalf("after one UID past After: %+v, want 501ms ahead and 0 whole seconds", s)
	}
}
