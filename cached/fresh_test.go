package cached

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/internal/idtest"
)

// lag returns how many seconds uid's second is behind the clock's now
// (negative when ahead).
func lag(g *Generator, uid int64) int64 { return time.Now().Unix() - g.Layout().Parse(uid).Time.Unix() }

// TestFreshWhenIdle: one take every 3 s for an hour, then one every 10
// minutes for a day: every ID within MaxLag of the clock, and the padder
// wakes about once a second. The clock is the system clock in a synctest
// bubble, so the day passes in no real time.
func TestFreshWhenIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		g := newGenerator(t, Config{Layout: idtest.LayoutFrom(t, bits.Spec{TimeBits: 30, WorkerBits: 29, SeqBits: 4}, start.AddDate(0, 0, -1))})
		var ids []int64
		take := func(every time.Duration, n int) {
			for range n {
				time.Sleep(every)
				id, err := g.NextID()
				if err != nil {
					t.Fatal(err)
				}
				if l := lag(g, id); l > 2 || l < -int64(g.Stats().Ahead/time.Second) {
					t.Fatalf("ID %d at %v: %d s behind the clock, MaxLag is 2 s", len(ids), time.Since(start), l)
				}
				ids = append(ids, id)
			}
		}
		take(3*time.Second, 1200)
		take(10*time.Minute, 144)
		elapsed := time.Since(start).Seconds()
		s := g.Stats()
		if fills := float64(s.Fills) / elapsed; fills > 2 || s.Stale == 0 || s.Taken != int64(len(ids)) {
			t.Fatalf("Stats %+v over %.0f s: %.2f padder fills a second, want at most 2, stale IDs thrown away, and %d taken",
				s, elapsed, fills, len(ids))
		}
		idtest.Check(t, g, [][]int64{ids})
	})
}

// TestFreshInBursts: bursts far above 2^SeqBits a second, idle spells, and
// bursts again, from several goroutines: every ID within [now - MaxLag, now
// + MaxAhead], all unique, each goroutine's increasing.
func TestFreshInBursts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		g := newGenerator(t, Config{
			Layout:     idtest.LayoutFrom(t, bits.Spec{TimeBits: 30, WorkerBits: 29, SeqBits: 4}, start.AddDate(0, 0, -1)),
			BoostPower: 2, MaxAhead: 3 * time.Second,
		})
		ids, err := idtest.Collect(4, 2000, func() (int64, error) {
			if n := time.Since(start) / time.Second; n%20 == 19 {
				time.Sleep(7 * time.Second) // an idle spell in every 20 s
			}
			id, err := g.NextID()
			if err == nil {
				if l := lag(g, id); l > 2 || l < -3 {
					t.Errorf("ID %d s behind the clock, want within [-3, 2]", l)
				}
			}
			return id, err
		})
		if err != nil {
			t.Fatal(err)
		}
		idtest.Check(t, g, ids)
		if s := g.Stats(); s.Stale == 0 || s.ClockWait == 0 {
			t.Fatalf("Stats %+v: want IDs thrown away in the idle spells and takes held back in the bursts", s)
		}
	})
}

// TestSpread: at 10 IDs a second for 1,000 s, and at flat out, the IDs
// spread evenly over id % 2^k: a few IDs a second would otherwise all be
// the first of their second, on one shard.
func TestSpread(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		g := newGenerator(t, Config{Layout: idtest.LayoutFrom(t, uidgen.DefaultLayout().Bits().Spec(), start.AddDate(0, 0, -1))})
		ids := make([]int64, 10_000)
		for i := range ids {
			time.Sleep(100 * time.Millisecond)
			var err error
			if ids[i], err = g.NextID(); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range []int{2, 6, 10} {
			idtest.CheckSpread(t, ids, k)
		}
	})
	g := newGenerator(t, Config{})
	ids := make([]int64, 64<<10)
	if _, err := g.NextIDs(ids); err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{2, 6, 10} {
		idtest.CheckSpread(t, ids, k)
	}
}
