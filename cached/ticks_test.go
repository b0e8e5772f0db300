package cached

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/scheme/schemetest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// perSecond is the IDs a second holds in the small layouts below: 4
// sequence bits.
const perSecond = 16

// smallFixture is a generator of 16 IDs a second and a ring of 2^boost
// seconds, worker 5, on a stopped clock that reads the given second.
func smallFixture(t *testing.T, second int64, boost int) (*Generator, *clocktest.Clock) {
	schemetest.WholeSeconds(t)
	clock := clocktest.New(uidgen.DefaultLayout().Epoch().Add(time.Duration(second) * time.Second))
	g := newGenerator(t, Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 29, SeqBits: 4}), Clock: clock, BoostPower: boost, Assigner: uidgen.Static(5)})
	return g, clock
}

// takeIncreasing takes n IDs and fails t unless each is above the one
// before.
func takeIncreasing(t *testing.T, g *Generator, n int, prev int64) int64 {
	t.Helper()
	for i := range n {
		id, err := g.NextID()
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

// TestSecondsFromTheClock: the first fill puts the clock's second and the
// next, whole, from sequence 0, and no more until takes reach the next:
// what no load forced, a crash would spend. In the bubble the padder's
// once-a-second tick cannot come between New and Stats, however slow the
// machine, so Stats counts New's fill alone.
func TestSecondsFromTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, _ := smallFixture(t, 100, 2)
		if s := g.Stats(); int64(s.Ahead/time.Second) != 1 || s.Available != 2*perSecond || s.Fills != 1 {
			t.Fatalf("after New: %+v; want seconds 100 and 101 put", s)
		}
		id, err := g.NextID()
		if err != nil {
			t.Fatal(err)
		}
		if p := g.Layout().Parse(id); p.Time.Unix()-g.Layout().Epoch().Unix() != 100 || p.Sequence != 0 || p.WorkerID != 5 {
			t.Fatalf("first ID %+v, want second 100, sequence 0, worker 5", p)
		}
	})
}

// TestNoWastedSeconds: with the clock stopped, every second the padder
// borrows is put whole, so IDs taken plus IDs waiting are exactly the seconds
// put times IDs per second, and the lead over the clock stays within the
// bound the seconds source promises. synctest.Wait lets the padder finish
// each fill before the test looks.
func TestNoWastedSeconds(t *testing.T) {
	for _, boost := range []int{1, 2, 3} {
		synctest.Test(t, func(t *testing.T) {
			g, _ := smallFixture(t, 1000, boost)
			size := g.Stats().Size
			prev := int64(0)
			for taken := int64(0); taken < 5000; {
				prev = takeIncreasing(t, g, 37, prev)
				taken += 37
				synctest.Wait()
				s := g.Stats()
				if put := (int64(s.Ahead/time.Second) + 1) * perSecond; taken+s.Available != put {
					t.Fatalf("boost %d: %d taken + %d waiting != %d put in seconds 1000..%d", boost, taken, s.Available, put, 1000+int64(s.Ahead/time.Second))
				}
				if bound := (taken+size)/perSecond + 2; int64(s.Ahead/time.Second) > bound {
					t.Fatalf("boost %d: %d seconds ahead after %d taken, bound %d", boost, int64(s.Ahead/time.Second), taken, bound)
				}
			}
		})
	}
}

// TestClockSteppedBack: a clock that goes back changes nothing, since the
// next second is max(last+1, now); one that jumps forward is followed.
func TestClockSteppedBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, clock := smallFixture(t, 5000, 1)
		prev := takeIncreasing(t, g, 3*perSecond, 0)
		clock.Advance(-time.Hour)
		prev = takeIncreasing(t, g, 5*perSecond, prev)
		synctest.Wait()
		if s := g.Stats(); int64(s.Ahead/time.Second) < 3600 {
			t.Fatalf("%+v: with the clock an hour back, want over 3600 seconds ahead", s)
		}
		clock.Advance(2 * time.Hour)
		second := func(uid int64) int64 { return g.Layout().Parse(uid).Time.Unix() - g.Layout().Epoch().Unix() }
		for second(prev) < 5000+3600 {
			prev = takeIncreasing(t, g, perSecond, prev)
			synctest.Wait()
		}
		if s := g.Stats(); int64(s.Ahead/time.Second) > 2 {
			t.Fatalf("%+v: want the padder back on the clock, at most the ring's 2 seconds ahead", s)
		}
	})
}

// TestBurstWastesNoSecond: a burst of takes right after New, and again right
// after an idle spell, borrows no more seconds than the IDs it takes fill,
// plus the ring and two: a second the padder makes ahead of the clock starts
// at its first sequence, since takes want it whole. Seconds made at the
// clock's pace still start at random (TestSpreadAtLowLoad). The clock is
// stopped, so every second past the first is borrowed.
func TestBurstWastesNoSecond(t *testing.T) {
	burst := int64(sizetest.Pick(2_000_000, 300_000))
	synctest.Test(t, func(t *testing.T) {
		clock := clocktest.New(uidgen.DefaultLayout().Epoch().Add(1000 * time.Second))
		g := newGenerator(t, Config{Clock: clock})
		perSecond := g.Layout().Bits().MaxSequence() + 1
		size := g.Stats().Size
		check := func(when string) {
			t.Helper()
			lead := int64(g.Stats().Ahead / time.Second)
			if bound := (burst+size)/perSecond + 2; lead > bound {
				t.Fatalf("%s: %d IDs borrowed %d seconds ahead of the clock, want at most (%d + %d ring) / %d + 2 = %d",
					when, burst, lead, burst, size, perSecond, bound)
			}
		}
		takeBurst := func() {
			ids := make([]int64, 4096)
			for taken := int64(0); taken < burst; taken += int64(len(ids)) {
				if _, err := g.NextIDs(ids); err != nil {
					t.Fatal(err)
				}
			}
		}
		takeBurst()
		synctest.Wait()
		check("right after New")

		// An idle spell: the clock passes the borrowed seconds and an hour
		// more, and the padder catches up with it.
		clock.Advance(g.Stats().Ahead.Truncate(time.Second) + time.Hour)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if _, err := g.NextID(); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		takeBurst()
		synctest.Wait()
		check("after an idle spell")
	})
}

// TestBorrowsOnlyUnderLoad: while takes stay within the clock's second, the
// ring holds it and the next, and no more, however long the padder runs;
// once takes go past the clock's second, the padder borrows as far ahead as
// the ring holds.
func TestBorrowsOnlyUnderLoad(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, clock := smallFixture(t, 100, 3)
		prev := int64(0)
		for range 5 {
			prev = takeIncreasing(t, g, perSecond/4, prev)
			clock.Advance(time.Second)
			time.Sleep(time.Second) // the padder's once-a-second fill
			synctest.Wait()
			if s := g.Stats(); s.Ahead != time.Second {
				t.Fatalf("a quarter of a second's IDs each second: %+v; want the next second put and no more", s)
			}
		}
		takeIncreasing(t, g, 2*perSecond, prev)
		synctest.Wait()
		if s := g.Stats(); s.Ahead < 4*time.Second {
			t.Fatalf("after takes past the clock's second: %+v; want the ring's seconds borrowed ahead", s)
		}
	})
}
