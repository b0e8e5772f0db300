package segment

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// TestDatabaseDown runs a generator on a throwaway server that crashes, and
// then stops answering. An outage over before the generator hands out what
// it holds costs no take. Through a longer one, takes hand out every number
// claimed before it, none claimed during it, and then fail saying why; once
// the database is back the generator goes on by itself. One goroutine takes
// every number, so across the whole test each must be above the one before,
// and since the generator is the tag's only claimer, exactly one more: an
// outage loses no number either.
func TestDatabaseDown(t *testing.T) {
	for _, kind := range dbtest.ServerKinds {
		t.Run(kind, func(t *testing.T) { testDatabaseDown(t, kind) })
	}
}

func testDatabaseDown(t *testing.T, kind string) {
	const (
		// MaxStep equal to Step makes every claim step numbers, whatever
		// the rate, so what the generator holds is known. The ring is
		// small beside a range, so that most of it waits in the ranges.
		step, ringSize = 1000, 64
		// short is how long the shorter outages last at least: long
		// enough for the claimer, woken by the takes, to send its claim
		// to a server that is down.
		short = 300 * time.Millisecond
		// recovery bounds how long after the server is back NextID may
		// still fail: the claimer's longest back-off and a claim.
		recovery = 10 * time.Second
	)
	srv := dbtest.Start(t, kind)
	db := srv.Server().Open(t)
	if err := EnsureSchema(testContext(t), Config{DB: db}); err != nil {
		t.Fatal(err)
	}
	const tag = "outage"
	g := open(t, Config{DB: db, Tag: tag, Step: step, MaxStep: step, RingSize: ringSize})
	// A subtest that fails with the server down leaves it to this, which
	// runs before the generator's Close, so that Close finds it up.
	var down func()
	t.Cleanup(func() {
		if down != nil {
			down()
		}
	})

	var ids []int64
	// take takes a number and records it: one that is not the one after
	// the last fails t.
	take := func(t *testing.T) error {
		t.Helper()
		id, err := g.NextID()
		if err != nil {
			return err
		}
		if n := len(ids); n > 0 && id != ids[n-1]+1 {
			t.Fatalf("number %d after %d, want %d", id, ids[n-1], ids[n-1]+1)
		}
		ids = append(ids, id)
		return nil
	}
	mustTake := func(t *testing.T, n int, when string) {
		t.Helper()
		for i := range n {
			if err := take(t); err != nil {
				t.Fatalf("take %d of %d %s: %v", i+1, n, when, err)
			}
		}
	}
	// maxID reads the tag's max_id: the first number not claimed.
	maxID := func(t *testing.T) int64 {
		t.Helper()
		list, err := List(testContext(t), Config{DB: db})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list {
			if r.Tag == tag {
				return r.Next
			}
		}
		t.Fatalf("tag %q missing from %v", tag, list)
		return 0
	}
	// prime takes numbers until the claimer claims the next range, and
	// returns what the generator then holds, from the table: with that
	// range in hand and no claim under way, nothing is claimed while the
	// database is down. Below half a range less a ring, the padder's last
	// look at the range was below half a range too, and woke the claimer.
	prime := func(t *testing.T) (held, end int64) {
		t.Helper()
		claims := g.Stats().Claims
		deadline := time.Now().Add(recovery)
		for st := g.Stats(); st.Claims == claims; st = g.Stats() {
			if st.Available+st.Pending > step/2-ringSize {
				mustTake(t, 1, "before the outage")
				continue
			}
			if time.Now().After(deadline) {
				t.Fatalf("no claim %v after the generator fell to %d numbers: %+v", recovery, st.Available+st.Pending, st)
			}
			time.Sleep(time.Millisecond) // polls; the deadline bounds it
		}
		if st := g.Stats(); st.ClaimSize != step {
			t.Fatalf("the claim took %d numbers, want the step %d: %+v", st.ClaimSize, step, st)
		}
		end = maxID(t)
		return end - 1 - ids[len(ids)-1], end
	}
	// waitFor polls cond until it holds, failing t after limit.
	waitFor := func(t *testing.T, what string, limit time.Duration, cond func(Stats) bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for st := g.Stats(); !cond(st); st = g.Stats() {
			if time.Now().After(deadline) {
				t.Fatalf("no %s after %v: %+v", what, limit, st)
			}
			time.Sleep(time.Millisecond) // polls; the deadline bounds it
		}
	}
	mustTake(t, 1, "at the start")

	for _, tt := range []struct {
		name          string
		fail, recover func()
		// refused says a claim fails at once; a paused server leaves it
		// waiting for an answer.
		refused bool
		// why is what a take that fails with the server down wraps,
		// beside ringbuffer.ErrEmpty: a refused connection and a claim
		// without an answer both say the server is unreachable.
		why error
	}{
		{"crash", srv.Kill, srv.Restart, true, uidgen.ErrUnreachable},
		{"no answer", srv.Pause, srv.Resume, false, uidgen.ErrUnreachable},
	} {
		// A subtest that fails leaves the generator in a state the next
		// one does not expect: stop there.
		ok := t.Run(tt.name+"/shorter", func(t *testing.T) {
			held, _ := prime(t)
			before := g.Stats()
			tt.fail()
			down = tt.recover
			start := time.Now()
			// All but a tenth of a range: well below half a range, so the
			// claimer is asked for the next while the server is down.
			n := int(held - step/10)
			mustTake(t, n, "of what the generator held in an outage")
			if tt.refused {
				waitFor(t, "failed claim", recovery, func(st Stats) bool { return st.ClaimsFailed > before.ClaimsFailed })
			}
			time.Sleep(time.Until(start.Add(short))) // the outage's length, not a wait for an event
			tt.recover()
			down = nil
			waitFor(t, "claim with the server back", recovery, func(st Stats) bool { return st.Claims > before.Claims })
			mustTake(t, 2*step, "after a shorter outage")
			if st := g.Stats(); st.TakesFailed != before.TakesFailed {
				t.Fatalf("%d takes failed through an outage shorter than the %d numbers held", st.TakesFailed-before.TakesFailed, held)
			}
			t.Logf("%d of %d numbers held taken in a %v outage; %d claims failed", n, held,
				time.Since(start).Round(time.Millisecond), g.Stats().ClaimsFailed-before.ClaimsFailed)
		})
		ok = ok && t.Run(tt.name+"/longer", func(t *testing.T) {
			held, end := prime(t)
			before := g.Stats()
			tt.fail()
			down = tt.recover
			from := len(ids)
			var err error
			for err == nil {
				if err = take(t); err == nil && int64(len(ids)-from) > held {
					t.Fatalf("%d numbers taken with the server down, more than the %d held", len(ids)-from, held)
				}
			}
			if !errors.Is(err, ringbuffer.ErrEmpty) || !errors.Is(err, tt.why) || !strings.HasPrefix(err.Error(), "segment: next ID: ") {
				t.Fatalf("a take past what was held: %v; want segment: next ID: wrapping %q and %q", err, ringbuffer.ErrEmpty, tt.why)
			}
			if last := ids[len(ids)-1]; last != end-1 {
				t.Fatalf("the last number before the failure is %d, want the last claimed, %d", last, end-1)
			}
			if st := g.Stats(); st.Claims != before.Claims {
				t.Fatalf("%d claims with the server down", st.Claims-before.Claims)
			}
			t.Logf("%d numbers, all that were held, then: %v", len(ids)-from, err)

			tt.recover()
			down = nil
			back := time.Now()
			for {
				if err = take(t); err == nil {
					break
				}
				if !errors.Is(err, ringbuffer.ErrEmpty) {
					t.Fatalf("with the server back: %v; want only ringbuffer.ErrEmpty until a claim lands", err)
				}
				if time.Since(back) > recovery {
					t.Fatalf("the server back for %v, and NextID still fails: %v", time.Since(back), err)
				}
			}
			t.Logf("NextID works again %v after the server came back", time.Since(back).Round(time.Millisecond))
			mustTake(t, 2*step, "after a longer outage")
		})
		if !ok {
			return
		}
	}
	checkUnique(t, ids)
	if err := g.Close(); err != nil {
		t.Fatalf("Close after the outages: %v", err)
	}
	if next, last := maxID(t), ids[len(ids)-1]; next != last+1 {
		t.Errorf("max_id is %d after Close, want %d, one past the last number handed out", next, last+1)
	}
}
