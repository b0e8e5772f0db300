package defaultgen_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4d941b13/uidgen/internal/memleasetest"
	"github.com/seed4d941b13/uidgen/internal/scheme/schemetest"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
)

// TestLeasedWorkerID: with a lease the generator starts at the lease's
// start even when its clock is behind it, uses only reserved seconds,
// waits at most maxClockWait for a renewal, and gives the ID back on Close
// with the last second it used.
func TestLeasedWorkerID(t *testing.T) {
	schemetest.WholeSeconds(t)
	synctest.Test(t, func(t *testing.T) {
		clock := clocktest.New(start)
		now := start.Unix()
		// An earlier holder may have used seconds up to now+2; this clock is
		// behind that.
		leaser := &memleasetest.Leaser{ID: 9, First: now + 3, Reserved: now + 3}
		g := newGen(t, defaultgen.Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 40, WorkerBits: 15, SeqBits: 8}), Leaser: leaser, Clock: clock})
		lease, max := leaser.Lease()
		if g.WorkerID() != 9 || max != 1<<15-1 {
			t.Fatalf("worker %d leased with maximum %d, want 9 and %d", g.WorkerID(), max, 1<<15-1)
		}
		id, err := g.NextID()
		if err != nil || g.Layout().Parse(id).Time.Unix() != now+3 || g.Layout().Parse(id).Sequence != 0 {
			t.Fatalf("first ID %+v, %v; want sequence 0 of the lease's start, %d", g.Layout().Parse(id), err, now+3)
		}
		// Spend the second; the next is not reserved and no renewal comes.
		for range 255 {
			if _, err := g.NextID(); err != nil {
				t.Fatal(err)
			}
		}
		if s := g.Stats(); s.Taken != 256 || s.TakesWaited != 0 || int64(s.Ahead/time.Second) != 3 || !s.Lease.Leased || s.Lease.Reserved.Unix() != now+3 {
			t.Fatalf("Stats %+v, want 256 taken, none waited, 3 s ahead, the lease held and reserved to the end of second %d", s, now+3)
		}
		clock.Advance(4 * time.Second) // the clock reaches now+4
		_, err = g.NextID()
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "reservation of worker ID 9 runs out") {
			t.Fatalf("NextID past the reservation = %v, want it to say the reservation runs out, after maxClockWait", err)
		}
		if s := g.Stats(); s.Taken != 256 || s.TakesWaited != 1 || s.TakesFailed != 1 || int64(s.Ahead/time.Second) != 0 {
			t.Fatalf("Stats %+v, want 256 taken, one take waited and failed, none ahead", s)
		}
		lease.Reserve(now + 10)
		if id, err = g.NextID(); err != nil || g.Layout().Parse(id).Time.Unix() != now+4 {
			t.Fatalf("after a renewal: %+v, %v; want second %d", g.Layout().Parse(id), err, now+4)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		if last, ok := lease.Released(); !ok || last != now+4 {
			t.Fatalf("released at %d (%v), want the last second used, %d", last, ok, now+4)
		}
		if _, err := g.NextID(); !errors.Is(err, uidgen.ErrClosed) {
			t.Fatalf("NextID after Close = %v, want ErrClosed", err)
		}
	})
}

// TestLeaseStartBeyondClockWait: a leased ID whose last holder reserved
// seconds more than maxClockWait ahead makes New wait for the clock under
// its ctx, failing, naming the reservation, and giving the ID back unused
// when ctx ends first: the default generator never hands out IDs from
// further in the future than it would wait for a clock set back.
func TestLeaseStartBeyondClockWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := start.Unix()
		leaser := &memleasetest.Leaser{ID: 9, First: now + 100, Reserved: now + 200}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		g, err := defaultgen.New(ctx, defaultgen.Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 40, WorkerBits: 15, SeqBits: 8}), Leaser: leaser, Clock: clocktest.New(start)})
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "more than 5s ahead of the clock") {
			t.Fatalf("New with the lease's start 100 s ahead = %v, %v; want it to wait and fail with the context", g, err)
		}
		if lease, _ := leaser.Lease(); lease == nil {
			t.Fatal("no lease taken")
		} else if last, ok := lease.Released(); !ok || last != now+99 {
			t.Fatalf("released at %d (%v), want the ID given back unused, at %d", last, ok, now+99)
		}
	})
}
