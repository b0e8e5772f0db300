package serial

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
	"github.com/seed4d941b13/uidgen/segment"
)

const order = "ORD-{yyyy}{MM}{dd}-{seq:6}"

// clock is a wall clock the test moves by hand.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.set(t)
	return c
}

func (c *clock) now() time.Time  { return time.Unix(0, c.ns.Load()) }
func (c *clock) set(t time.Time) { c.ns.Store(t.UnixNano()) }

// each runs f on every kind of database, with a tag table of its own.
func each(t *testing.T, f func(t *testing.T, cfg segment.Config)) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		cfg := segment.Config{DB: db, Table: dbtest.Table(t, db, "leaf_alloc_"), Tag: "order"}
		if err := segment.EnsureSchema(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		f(t, cfg)
	})
}

// ledger records, per tag, the numbers handed out and dropped.
type ledger struct {
	mu      sync.Mutex
	handed  map[string][]int64
	dropped map[string][]int64
}

func newLedger() *ledger {
	return &ledger{handed: map[string][]int64{}, dropped: map[string][]int64{}}
}

func (l *ledger) drop(tag string, n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropped[tag] = append(l.dropped[tag], n)
}

// open opens a Segment on the clock, telling l of what it drops.
func open(t *testing.T, cfg segment.Config, pattern string, loc *time.Location, c *clock, l *ledger) *Segment {
	t.Helper()
	g, err := NewSegment(context.Background(), SegmentConfig{Segment: cfg, Pattern: pattern, Location: loc, Now: c.now})
	if err != nil {
		t.Fatalf("NewSegment: %v", err)
	}
	g.dropped = l.drop
	t.Cleanup(func() { g.Close() })
	return g
}

// day is a string of order's: its day's tag and its number.
func (l *ledger) record(t *testing.T, s string) (tag string, n int64) {
	t.Helper()
	date, num, ok := strings.Cut(strings.TrimPrefix(s, "ORD-"), "-")
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || len(s) != len("ORD-20261127-000001") {
		t.Fatalf("%q is not a string of %s", s, order)
	}
	tag = "order:" + date
	l.mu.Lock()
	defer l.mu.Unlock()
	l.handed[tag] = append(l.handed[tag], n)
	return tag, n
}

// midnight is 2026-11-28 00:00 in Shanghai, a zone not UTC, so that the
// periods are the zone's days.
var (
	shanghai = mustZone("Asia/Shanghai")
	midnight = time.Date(2026, 11, 28, 0, 0, 0, 0, shanghai)
)

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// crossMidnight takes from gens on goroutines per generator while the
// clock crosses midnight: it moves the clock once the fleet took before
// numbers, and stops once it took after more. Every take that starts once
// the clock has moved must be of the new day; it returns how many did.
func crossMidnight(t *testing.T, gens []*Segment, goroutines int, c *clock, l *ledger, before, after int) {
	t.Helper()
	var taken atomic.Int64
	var moved, stop atomic.Bool
	gate := make(chan struct{})
	errs := make(chan error, len(gens)*goroutines)
	var wg sync.WaitGroup
	for _, g := range gens {
		for range goroutines {
			wg.Go(func() {
				<-gate
				for !stop.Load() {
					late := moved.Load()
					s, err := g.Next(context.Background())
					if err != nil {
						errs <- err
						return
					}
					if tag, n := l.record(t, s); late && tag != "order:20261128" {
						errs <- fmt.Errorf("number %d of %s handed out after the clock passed midnight", n, tag)
						return
					}
					taken.Add(1)
				}
			})
		}
	}
	close(gate)
	for taken.Load() < int64(before) && len(errs) == 0 {
		time.Sleep(time.Millisecond)
	}
	c.set(midnight)
	moved.Store(true)
	for taken.Load() < int64(before+after) && len(errs) == 0 {
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// checkDense fails unless the numbers handed out of tag are 1..n, each
// once.
func (l *ledger) checkDense(t *testing.T, tag string) {
	t.Helper()
	got := slices.Sorted(slices.Values(l.handed[tag]))
	for i, n := range got {
		if n != int64(i+1) {
			t.Fatalf("%s: number %d is %d: want 1..%d, each once", tag, i+1, n, len(got))
		}
	}
}

// checkAccounted fails unless every number of tag below its max_id was
// handed out, given back (on record in the returned table) or dropped at
// the period's end, each once: segment's density, for a period that
// ended.
func (l *ledger) checkAccounted(t *testing.T, cfg segment.Config, tag string) {
	t.Helper()
	rows, err := segment.List(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rows, func(r segment.Row) bool { return r.Tag == tag })
	if i < 0 {
		t.Fatalf("no row %s", tag)
	}
	seen := map[int64]bool{}
	for _, n := range slices.Concat(l.handed[tag], l.dropped[tag]) {
		if seen[n] || n < 1 || n >= rows[i].Next {
			t.Fatalf("%s: number %d twice, or outside 1..%d", tag, n, rows[i].Next-1)
		}
		seen[n] = true
	}
	if int64(len(seen))+rows[i].Returned != rows[i].Next-1 {
		t.Fatalf("%s: %d handed out, %d dropped, %d given back: want them to make up 1..%d",
			tag, len(l.handed[tag]), len(l.dropped[tag]), rows[i].Returned, rows[i].Next-1)
	}
}

// TestDailyReset: one process takes on many goroutines across midnight,
// then restarts. Each day's numbers are 1..n, none of a day after it ends.
func TestDailyReset(t *testing.T) {
	each(t, func(t *testing.T, cfg segment.Config) {
		n := sizetest.Pick(20_000, 2_000)
		c, l := newClock(midnight.Add(-time.Minute)), newLedger()
		cfg.Step = 100
		g := open(t, cfg, order, shanghai, c, l)
		crossMidnight(t, []*Segment{g}, 8, c, l, n, n)
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		g = open(t, cfg, order, shanghai, c, l)
		for range 250 {
			s, err := g.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			l.record(t, s)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		for _, tag := range []string{"order:20261127", "order:20261128"} {
			l.checkDense(t, tag)
			l.checkAccounted(t, cfg, tag)
		}
		if len(l.handed["order:20261127"]) < n || len(l.handed["order:20261128"]) <= 250 {
			t.Fatalf("took %d and %d, want at least %d and more than 250", len(l.handed["order:20261127"]), len(l.handed["order:20261128"]), n)
		}
	})
}

// TestFleetDailyReset: three generators on one tag table stand in for a
// fleet, each on several goroutines, across midnight, and each restarts
// after it. Each day's numbers are unique, none of a day is handed out once
// the clock has passed its end, and every number below a day's max_id was
// handed out, given back or dropped. (Across processes a day's numbers are
// not 1..n: each process held a range when the day ended.)
func TestFleetDailyReset(t *testing.T) {
	each(t, func(t *testing.T, cfg segment.Config) {
		n := sizetest.Pick(20_000, 2_000)
		c, l := newClock(midnight.Add(-time.Minute)), newLedger()
		cfg.Step = 50
		gens := []*Segment{open(t, cfg, order, shanghai, c, l), open(t, cfg, order, shanghai, c, l), open(t, cfg, order, shanghai, c, l)}
		crossMidnight(t, gens, 4, c, l, n, n)
		for i, g := range gens {
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
			gens[i] = open(t, cfg, order, shanghai, c, l)
		}
		crossMidnight(t, gens, 2, c, l, 0, n) // already past midnight: more of the new day
		for _, g := range gens {
			if err := g.Close(); err != nil {
				t.Fatal(err)
			}
		}
		for _, tag := range []string{"order:20261127", "order:20261128"} {
			l.checkAccounted(t, cfg, tag)
		}
	})
}

// TestTakeStraddlesMidnight: a number taken while the clock passes
// midnight is dropped, and the next day's first number handed out in its
// place. (Without the clock read after the take, Next returns the
// previous day's number.)
func TestTakeStraddlesMidnight(t *testing.T) {
	cfg := sqlite(t)
	c, l := newClock(midnight.Add(-time.Millisecond)), newLedger()
	g := open(t, cfg, order, shanghai, c, l)
	for want := range 3 {
		if s, _ := g.Next(context.Background()); s != fmt.Sprintf("ORD-20261127-%06d", want+1) {
			t.Fatalf("Next = %q", s)
		}
	}
	// The clock passes midnight between the read before the take and
	// the one after it.
	reads := 0
	g.now = func() time.Time {
		if reads++; reads == 1 {
			return midnight.Add(-time.Nanosecond)
		}
		return midnight
	}
	s, err := g.Next(context.Background())
	if err != nil || s != "ORD-20261128-000001" {
		t.Fatalf("Next across midnight = %q, %v; want ORD-20261128-000001", s, err)
	}
	if d := l.dropped["order:20261127"]; !slices.Equal(d, []int64{4}) {
		t.Fatalf("dropped %v of the day that ended, want [4]", d)
	}
	// A clock stepped back keeps the new day.
	g.now = newClock(midnight.Add(-time.Hour)).now
	if s, _ := g.Next(context.Background()); s != "ORD-20261128-000002" {
		t.Fatalf("Next with the clock stepped back = %q, want ORD-20261128-000002", s)
	}
}

func sqlite(t *testing.T) segment.Config {
	s := dbtest.Shared(t, "sqlite")
	db := s.Open(t)
	cfg := segment.Config{DB: db, Table: dbtest.Table(t, db, "leaf_alloc_"), Tag: "order"}
	if err := segment.EnsureSchema(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestPeriods: each pattern's period, its tags and strings.
func TestPeriods(t *testing.T) {
	cfg := sqlite(t)
	at := time.Date(2026, 11, 27, 13, 5, 0, 0, time.UTC)
	for _, c := range []struct {
		pattern   string
		next      time.Time // the start of the next period
		tag, want string
		wantNext  string
	}{
		{"{yyyy}{MM}{dd}{HH}-{seq:3}", at.Add(55 * time.Minute), "order:2026112713", "2026112713-001", "2026112714-001"},
		{"INV-{yy}{MM}-{seq:4}", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), "order:202611", "INV-2611-0001", "INV-2612-0001"},
		{"Y{yyyy}/{seq:2}", time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), "order:2026", "Y2026/01", "Y2027/01"},
		{"{{{seq:5}}}", at.AddDate(5, 0, 0), "order", "{00001}", "{00003}"},
	} {
		t.Run(c.pattern, func(t *testing.T) {
			cfg := cfg
			cfg.Tag = "order"
			clk, l := newClock(at), newLedger()
			if c.tag != "order" {
				cfg.Table = dbtest.Table(t, cfg.DB, "leaf_alloc_")
				if err := segment.EnsureSchema(context.Background(), cfg); err != nil {
					t.Fatal(err)
				}
			}
			g := open(t, cfg, c.pattern, time.UTC, clk, l)
			s, err := g.Next(context.Background())
			if err != nil || s != c.want || g.cur.tag != c.tag {
				t.Fatalf("Next = %q, %v from %s; want %q from %s", s, err, g.cur.tag, c.want, c.tag)
			}
			clk.set(c.next.Add(-time.Nanosecond))
			if s, _ := g.Next(context.Background()); s[len(s)-2:] == "01" && c.tag != "order" {
				t.Fatalf("Next just before the period ends = %q: restarted early", s)
			}
			clk.set(c.next)
			if s, err := g.Next(context.Background()); err != nil || s != c.wantNext {
				t.Fatalf("Next once the period ends = %q, %v; want %q", s, err, c.wantNext)
			}
		})
	}
}

// TestSegmentErrors: each bad pattern and config is refused by
// NewSegment, naming the fault; a period's numbers past {seq:N} are an
// error naming the pattern.
func TestSegmentErrors(t *testing.T) {
	cfg := sqlite(t)
	for _, c := range []struct {
		name, pattern, tag string
		want               error
		says               string
	}{
		{"no seq", "ORD-{yyyy}{MM}{dd}", "order", uidgen.ErrConfig, "no {seq:N}"},
		{"worker", "{yyyy}{worker:3}{seq:4}", "order", uidgen.ErrConfig, "{worker:3}: a segment serial has no worker"},
		{"minutes", "{yyyy}{MM}{dd}{HH}{mm}-{seq:4}", "order", uidgen.ErrConfig, "{mm} would start a period each minute; the finest is an hour ({HH})"},
		{"seconds", "{yyyy}{MM}{dd}{HH}{ss}-{seq:4}", "order", uidgen.ErrConfig, "{ss} would start a period each second"},
		{"day without month", "{yyyy}{dd}-{seq:4}", "order", uidgen.ErrConfig, "{dd} needs {MM}"},
		{"month without year", "{MM}{dd}-{seq:4}", "order", uidgen.ErrConfig, "{MM} needs {yyyy}"},
		{"hour without day", "{yyyy}{MM}{HH}-{seq:4}", "order", uidgen.ErrConfig, "{HH} needs {dd}"},
		{"syntax", "ORD-{seq:6", "order", uidgen.ErrConfig, "is not closed"},
		{"tag too long for the date", order, strings.Repeat("t", 120), segment.ErrBadTag, "129 bytes, want 1 to 128"},
		{"bad tag", order, "or der", segment.ErrBadTag, "or der"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := cfg
			cfg.Tag = c.tag
			_, err := NewSegment(context.Background(), SegmentConfig{Segment: cfg, Pattern: c.pattern})
			prefix := "serial: "
			if c.want == uidgen.ErrConfig {
				prefix = fmt.Sprintf("serial: invalid config: pattern %q: ", c.pattern)
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), prefix) {
				t.Fatalf("NewSegment(%q) = %v; want %v saying %q", c.pattern, err, c.want, c.says)
			}
		})
	}
	t.Run("overflow", func(t *testing.T) {
		g := open(t, cfg, "D{yyyy}{MM}{dd}-{seq:1}", time.UTC, newClock(midnight), newLedger())
		for want := 1; want <= 9; want++ {
			if s, err := g.Next(context.Background()); err != nil || !strings.HasSuffix(s, "-"+strconv.Itoa(want)) {
				t.Fatalf("Next = %q, %v; want number %d", s, err, want)
			}
		}
		_, err := g.Next(context.Background())
		if !errors.Is(err, ErrOverflow) || !strings.Contains(err.Error(), `pattern "D{yyyy}{MM}{dd}-{seq:1}"`) || !strings.Contains(err.Error(), "number 10 of tag order:20261127 does not fit {seq:1}") {
			t.Fatalf("Next past 9 = %v; want ErrOverflow naming the pattern", err)
		}
	})
	t.Run("closed", func(t *testing.T) {
		g := open(t, cfg, order, time.UTC, newClock(midnight), newLedger())
		if err := errors.Join(g.Close(), g.Close()); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Next(context.Background()); !errors.Is(err, uidgen.ErrClosed) {
			t.Fatalf("Next after Close = %v, want ErrClosed", err)
		}
	})
}

// TestCloseStopsGoroutines: the generators of the periods a Segment went
// through are closed, the last by Close, and no goroutine of theirs
// outlives it.
func TestCloseStopsGoroutines(t *testing.T) {
	cfg := sqlite(t)
	before := runtime.NumGoroutine()
	c := newClock(midnight)
	g := open(t, cfg, order, shanghai, c, newLedger())
	for day := range 3 {
		c.set(midnight.AddDate(0, 0, day))
		if _, err := g.Next(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}
