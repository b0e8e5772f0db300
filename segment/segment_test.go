package segment

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// testTimeout bounds what a test sends to the database.
const testTimeout = 30 * time.Second

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// each runs f on every shared server with a tag table of its own, created.
func each(t *testing.T, f func(t *testing.T, s dbtest.Server, db *sql.DB, table string)) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		table := dbtest.Table(t, db, "leaf_alloc_")
		if err := EnsureSchema(testContext(t), Config{DB: db, Table: table}); err != nil {
			t.Fatalf("EnsureSchema: %v", err)
		}
		f(t, s, db, table)
	})
}

// eachParallel is each with the databases side by side, for the tests
// that mostly wait (generators taking at a steady pace) in tables of their
// own on each: the three runs share nothing but the servers.
func eachParallel(t *testing.T, f func(t *testing.T, s dbtest.Server, db *sql.DB, table string)) {
	t.Helper()
	for _, kind := range dbtest.Kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			s := dbtest.Shared(t, kind)
			db := s.Open(t)
			table := dbtest.Table(t, db, "leaf_alloc_")
			if err := EnsureSchema(testContext(t), Config{DB: db, Table: table}); err != nil {
				t.Fatalf("EnsureSchema: %v", err)
			}
			f(t, s, db, table)
		})
	}
}

// open returns a generator on cfg, closed when the test ends unless the
// test closed it.
func open(t testing.TB, cfg Config) *Generator {
	t.Helper()
	g, err := New(testContext(t), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// take takes n numbers from g on goroutines goroutines and returns each
// goroutine's, failing the test unless each goroutine's increase.
func take(t *testing.T, g *Generator, goroutines, n int) [][]int64 {
	t.Helper()
	got := make([][]int64, goroutines)
	errs := make([]error, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			for range n {
				id, err := g.NextID()
				if err != nil {
					errs[i] = err
					return
				}
				if k := len(got[i]); k > 0 && id <= got[i][k-1] {
					errs[i] = fmt.Errorf("goroutine %d: %d after %d", i, id, got[i][k-1])
					return
				}
				got[i] = append(got[i], id)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return got
}

// checkUnique fails the test if a number appears twice in lists.
func checkUnique(t *testing.T, lists ...[]int64) int {
	t.Helper()
	seen := make(map[int64]bool)
	for _, l := range lists {
		for _, id := range l {
			if seen[id] {
				t.Fatalf("number %d handed out twice", id)
			}
			seen[id] = true
		}
	}
	return len(seen)
}

// TestUniqueAcrossGenerators runs two generators on one tag, as two
// processes would, each taken from by many goroutines, with a small step so
// that they claim often and their ranges interleave.
func TestUniqueAcrossGenerators(t *testing.T) {
	goroutines, n := 16, sizetest.Pick(20_000, 2_000)
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		var lists [][]int64
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 2 {
			g := open(t, Config{DB: db, Table: table, Tag: "order", Step: 100, RingSize: 256})
			wg.Go(func() {
				got := take(t, g, goroutines, n)
				mu.Lock()
				lists = append(lists, got...)
				mu.Unlock()
			})
		}
		wg.Wait()
		if got, want := checkUnique(t, lists...), 2*goroutines*n; got != want {
			t.Fatalf("%d distinct numbers, want %d", got, want)
		}
	})
}

// TestRestartsLeaveNoGap opens a generator ten times in a row on a new tag
// and takes 1,000 numbers each time: the numbers are exactly 1 to 10,000.
func TestRestartsLeaveNoGap(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		var all []int64
		for range 10 {
			g := open(t, Config{DB: db, Table: table, Tag: "restart", Step: 300})
			got := make([]int64, 1000)
			if _, err := g.NextIDs(got); err != nil {
				t.Fatal(err)
			}
			if err := g.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			all = append(all, got...)
		}
		for i, id := range all {
			if id != int64(i+1) {
				t.Fatalf("number %d is %d, want %d: %v...", i, id, i+1, all[max(0, i-3):i+1])
			}
		}
	})
}

// TestCloseDuringTakes closes a generator while goroutines take from it,
// then opens another on the tag: nothing the first handed out, before or
// during Close, comes again from the second.
func TestCloseDuringTakes(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		cfg := Config{DB: db, Table: table, Tag: "close", Step: 1000, RingSize: 1024}
		g := open(t, cfg)
		lists := make([][]int64, 8)
		var taken atomic.Int64
		var wg sync.WaitGroup
		for i := range lists {
			wg.Go(func() {
				for {
					id, err := g.NextID()
					if errors.Is(err, uidgen.ErrClosed) {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					lists[i] = append(lists[i], id)
					taken.Add(1)
				}
			})
		}
		for taken.Load() < 5000 { // Close comes with takes under way
			runtime.Gosched()
		}
		if err := g.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		wg.Wait()
		next := make([]int64, 5000)
		if _, err := open(t, cfg).NextIDs(next); err != nil {
			t.Fatal(err)
		}
		checkUnique(t, append(lists, next)...)
	})
}

// TestLeafInterop claims ranges with Leaf's own statements, in its
// transaction, while a generator claims beside them: no range overlaps.
func TestLeafInterop(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		g := open(t, Config{DB: db, Table: table, Tag: "leaf", Step: 50, RingSize: 64})
		d := s.Dialect()
		var leaf []int64
		var wg sync.WaitGroup
		wg.Go(func() {
			for range 200 {
				// LeafAllocMapper.updateMaxIdAndGetLeafAlloc: the update and
				// the read, in one transaction.
				tx, err := db.BeginTx(testContext(t), nil)
				if err != nil {
					t.Error(err)
					return
				}
				var maxID, step int64
				_, err = tx.Exec(d.Rebind("UPDATE "+table+" SET max_id = max_id + step WHERE biz_tag = ?"), "leaf")
				if err == nil {
					err = tx.QueryRow(d.Rebind("SELECT max_id, step FROM "+table+" WHERE biz_tag = ?"), "leaf").Scan(&maxID, &step)
				}
				if err == nil {
					err = tx.Commit()
				}
				if err != nil {
					tx.Rollback()
					t.Error(err)
					return
				}
				for id := maxID - step; id < maxID; id++ {
					leaf = append(leaf, id)
				}
			}
		})
		ours := take(t, g, 4, sizetest.Pick(5_000, 1_000))
		wg.Wait()
		checkUnique(t, append(ours, leaf)...)
	})
}

// TestAdaptiveSize drives the claims with a hand-moved clock: a burst
// grows the range toward MaxStep, idleness shrinks it back to the step, and
// it never leaves [step, MaxStep].
func TestAdaptiveSize(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		clock := clocktest.New(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC))
		const step, maxStep = 100, 100_000
		g := open(t, Config{DB: db, Table: table, Tag: "adapt", Step: step, MaxStep: maxStep,
			ClaimEvery: time.Minute, RingSize: 1 << 10, Clock: clock})
		sizes, claims := []int64{g.Stats().ClaimSize}, int64(1)
		// drain takes n numbers with the clock moving by per every number,
		// and records each claim's size.
		drain := func(n int, per time.Duration) {
			t.Helper()
			for range n {
				clock.Sleep(per)
				if _, err := g.NextID(); err != nil {
					t.Fatal(err)
				}
				if st := g.Stats(); st.Claims > claims {
					claims = st.Claims
					sizes = append(sizes, st.ClaimSize)
				}
			}
		}
		// A burst: a thousand numbers a second, 60,000 a minute.
		drain(20_000, time.Millisecond)
		burst := slices.Max(sizes)
		if burst < 10*step {
			t.Errorf("claim sizes under a burst of 1,000/s: %v; want growth well past the step %d", sizes, step)
		}
		// Idle: a number a second, 60 a minute, below the step.
		drain(int(burst)+10*step, time.Second)
		if last := sizes[len(sizes)-1]; last != step {
			t.Errorf("claim sizes after idling at 1/s: %v; want back at the step %d", sizes, step)
		}
		for _, size := range sizes {
			if size < step || size > maxStep {
				t.Fatalf("claim sizes %v leave [%d, %d]", sizes, step, maxStep)
			}
		}
		t.Logf("%d claims, sized %v ...", len(sizes), sizes[:min(len(sizes), 5)])
	})
}

// TestEnsureSchemaConcurrently creates one table from many goroutines at
// once, as a fleet starting together does, then again: every call
// succeeds.
func TestEnsureSchemaConcurrently(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		table := dbtest.Table(t, db, "leaf_alloc_")
		errs := make([]error, 8)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { errs[i] = EnsureSchema(testContext(t), Config{DB: db, Table: table}) })
		}
		wg.Wait()
		if err := errors.Join(append(errs, EnsureSchema(testContext(t), Config{DB: db, Table: table}))...); err != nil {
			t.Fatal(err)
		}
		if got := rows(t, db, table); len(got) != 0 {
			t.Errorf("a new table holds %v", got)
		}
	})
}

// TestStartIsTheLeast: Start makes a new tag start there and moves a tag
// below it up, leaves a tag above it as it is, and many processes starting
// at once with one Start all succeed.
func TestStartIsTheLeast(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		const start = 1_000_000
		gens := make([]*Generator, 8)
		errs := make([]error, len(gens))
		var wg sync.WaitGroup
		for i := range gens {
			wg.Go(func() {
				gens[i], errs[i] = New(testContext(t), Config{DB: db, Table: table, Tag: "least", Start: start, Step: 10})
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("8 processes starting at once with Start %d: %v", start, err)
		}
		for _, g := range gens {
			if n, err := g.NextID(); err != nil || n < start {
				t.Errorf("NextID = %d, %v; want %d or more", n, err, start)
			}
			g.Close()
		}
		for _, tt := range []struct{ start, atLeast int64 }{{20, start}, {5_000_000, 5_000_000}} {
			g := open(t, Config{DB: db, Table: table, Tag: "least", Start: tt.start})
			if n, err := g.NextID(); err != nil || n < tt.atLeast {
				t.Errorf("Start %d: NextID = %d, %v; want %d or more", tt.start, n, err, tt.atLeast)
			}
			g.Close()
		}
	})
}

// TestTagRowGone: a generator whose tag row is deleted, or deleted and
// made again from 1, stops claiming once what it holds is handed out, and
// says why, rather than hand out numbers the row forgot. (A process that
// starts on the remade row repeats numbers; nothing in the table can tell
// it, which is why rows must not be deleted.)
func TestTagRowGone(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		for _, remake := range []bool{false, true} {
			tag := fmt.Sprintf("gone-%v", remake)
			g := open(t, Config{DB: db, Table: table, Tag: tag, Step: 100, MaxStep: 100, RingSize: 64})
			first, err := g.NextID()
			if err != nil {
				t.Fatal(err)
			}
			s.Exec(t, db, "DELETE FROM "+table+" WHERE biz_tag = ?", tag)
			if remake { // as an operator restoring the row from a script might
				s.Exec(t, db, "INSERT INTO "+table+" (biz_tag, max_id, step, update_time) VALUES (?, 1, 100, CURRENT_TIMESTAMP)", tag)
			}
			var last int64
			var n int
			for ; n < 1000; n++ {
				id, err := g.NextID()
				if err != nil {
					if !errors.Is(err, ErrTagGone) {
						t.Fatalf("after %d numbers: %v, want an error wrapping %q", n, err, ErrTagGone)
					}
					break
				}
				if id <= last {
					t.Fatalf("%d after %d", id, last)
				}
				last = id
			}
			if n == 1000 || last > first+199 {
				t.Fatalf("remade %v: %d numbers after the row went, up to %d; want at most the two ranges held", remake, n, last)
			}
		}
	})
}

// TestWrappedDriver: Config.Dialect names the dialect a wrapped driver
// hides, to every call that touches the table.
func TestWrappedDriver(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, _ *sql.DB, table string) {
		db := s.Wrapped(t)
		ctx := testContext(t)
		if _, err := New(ctx, Config{DB: db, Table: table, Tag: "wrapped"}); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), "DB's driver is") {
			t.Fatalf("New on a wrapped driver: %v, want an error wrapping %q naming the driver", err, uidgen.ErrConfig)
		}
		if err := EnsureSchema(ctx, Config{DB: db, Table: table}); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), "DB's driver is") {
			t.Fatalf("EnsureSchema on a wrapped driver: %v, want an error wrapping %q naming the driver", err, uidgen.ErrConfig)
		}
		if _, err := List(ctx, Config{DB: db, Table: table}); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), "DB's driver is") {
			t.Fatalf("List on a wrapped driver: %v, want an error wrapping %q naming the driver", err, uidgen.ErrConfig)
		}
		cfg := Config{DB: db, Dialect: s.Kind, Table: table, Tag: "wrapped"}
		if err := EnsureSchema(ctx, cfg); err != nil {
			t.Fatalf("EnsureSchema with Dialect %q: %v", s.Kind, err)
		}
		g := open(t, cfg)
		if n, err := g.NextID(); err != nil || n != 1 {
			t.Fatalf("NextID with Dialect %q = %d, %v; want 1", s.Kind, n, err)
		}
		if list, err := List(ctx, cfg); err != nil || len(list) != 1 || list[0].Tag != "wrapped" {
			t.Fatalf("List with Dialect %q = %+v, %v; want the one tag", s.Kind, list, err)
		}
	})
}

// TestBadConfig: each bad field is refused, naming the value, before
// anything is written.
func TestBadConfig(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		ctx := testContext(t)
		if err := open(t, Config{DB: db, Table: table, Tag: "moved", Start: 500}).Close(); err != nil {
			t.Fatal(err)
		}
		before := rows(t, db, table)
		for _, tt := range []struct {
			name string
			cfg  Config
			want error
			text string
		}{
			{"nil db", Config{Tag: "x"}, uidgen.ErrConfig, "DB is nil"},
			{"bad table", Config{DB: db, Table: "leaf alloc", Tag: "x"}, uidgen.ErrConfig, `Table "leaf alloc"`},
			// 60 bytes fit every dialect's names; with "_returned", 69 fit none.
			{"table of numbers given back too long", Config{DB: db, Table: strings.Repeat("t", 60), Tag: "x"}, uidgen.ErrConfig,
				`is 69 bytes: want 1 to`},
			{"empty tag", Config{DB: db, Table: table}, ErrBadTag, `""`},
			{"bad tag", Config{DB: db, Table: table, Tag: "a b"}, ErrBadTag, `"a b"`},
			{"long tag", Config{DB: db, Table: table, Tag: strings.Repeat("t", 129)}, ErrBadTag, "129 bytes, want 1 to 128"},
			{"negative step", Config{DB: db, Table: table, Tag: "x", Step: -1}, uidgen.ErrConfig, "Step -1: want 1 to 2147483647 (the step column is an INT)"},
			{"max below step", Config{DB: db, Table: table, Tag: "x", Step: 10, MaxStep: 5}, uidgen.ErrConfig, "MaxStep 5 is below Step 10: want MaxStep at least Step"},
			{"default max below step", Config{DB: db, Table: table, Tag: "x", Step: 3_000_000}, uidgen.ErrConfig, "MaxStep 2000000 (the default) is below Step 3000000: want MaxStep at least Step"},
			{"max below default step", Config{DB: db, Table: table, Tag: "x", MaxStep: 1000}, uidgen.ErrConfig, "MaxStep 1000 is below Step 2000 (the default): want"},
			{"max below the tag's step", Config{DB: db, Table: table, Tag: "moved", MaxStep: 10, Step: 1}, uidgen.ErrConfig, `MaxStep 10 is below tag "moved"'s step 2000: want MaxStep at least the tag's step`},
			{"negative start", Config{DB: db, Table: table, Tag: "x", Start: -5}, uidgen.ErrConfig, "Start -5: want 0 (meaning 1) to 2^62"},
			{"start too high", Config{DB: db, Table: table, Tag: "x", Start: maxStart + 1}, uidgen.ErrConfig, "Start 4611686018427387905: want"},
			{"max step too high", Config{DB: db, Table: table, Tag: "x", MaxStep: stepLimit + 1}, uidgen.ErrConfig, "MaxStep 1099511627777: want at most 2^40 (1099511627776)"},
			{"negative claim every", Config{DB: db, Table: table, Tag: "x", ClaimEvery: -time.Second}, uidgen.ErrConfig, "ClaimEvery -1s: want 0 (meaning 5m) or more"},
			{"ring size", Config{DB: db, Table: table, Tag: "x", RingSize: 1000}, uidgen.ErrConfig, "RingSize 1000: want a power of two from 2 to 16777216"},
			{"missing table", Config{DB: db, Table: table + "_none", Tag: "x"}, uidgen.ErrNoTable,
				"segment.EnsureSchema or the DDL that `uidgen schema -segment -dialect " + s.Kind + "` prints"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				g, err := New(ctx, tt.cfg)
				if !errors.Is(err, tt.want) || !strings.HasPrefix(err.Error(), "segment: ") || !strings.Contains(err.Error(), tt.text) {
					t.Fatalf("New: %v, want an error wrapping %q, naming %s", err, tt.want, tt.text)
				}
				if g != nil {
					t.Errorf("New = %v with an error", g)
				}
			})
		}
		if after := rows(t, db, table); !slices.Equal(before, after) {
			t.Errorf("the bad configs wrote: table was %v, is %v", before, after)
		}
	})
}

// rows returns the table's tags with their max_id and step.
func rows(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	list, err := List(testContext(t), Config{DB: db, Table: table})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range list {
		out = append(out, fmt.Sprint(r.Tag, r.Next, r.Step))
	}
	return out
}

// TestLookup: Lookup opens a tag only if its row exists. On a missing tag
// it fails with ErrNoTag, naming the tag and the table, and writes no row;
// once New has made the tag, Lookup opens it and hands out numbers above
// what New's generator gave back.
func TestLookup(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB, table string) {
		cfg := Config{DB: db, Table: table, Tag: "order"}
		g, err := Lookup(testContext(t), cfg)
		if !errors.Is(err, ErrNoTag) || !strings.Contains(err.Error(), `"order"`) || !strings.Contains(err.Error(), table) {
			t.Fatalf("Lookup of a missing tag: %v, %v; want ErrNoTag naming the tag and %s", g, err, table)
		}
		if rows, err := List(testContext(t), cfg); err != nil || len(rows) != 0 {
			t.Fatalf("after Lookup of a missing tag the table holds %+v (%v), want no row", rows, err)
		}
		made := open(t, cfg)
		first, err := made.NextID()
		if err != nil {
			t.Fatal(err)
		}
		if err := made.Close(); err != nil {
			t.Fatal(err)
		}
		g, err = Lookup(testContext(t), cfg)
		if err != nil {
			t.Fatalf("Lookup of a tag New made: %v", err)
		}
		defer g.Close()
		if n, err := g.NextID(); err != nil || n <= first {
			t.Errorf("Lookup's first number %d (%v), want above %d", n, err, first)
		}
	})
}
