package dbtest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
	"github.com/seed4d941b13/uidgen/ringbuffer"
	"github.com/seed4d941b13/uidgen/worker"
)

// TestLeaseDatabaseDown runs a generator on a leased worker ID from a
// throwaway server that crashes, and then stops answering. While the
// database is away for less than the reservation's lead, takes go on;
// flat out they drain the reserved seconds and then fail saying the
// reservation runs out, never using a second beyond it; once the database
// is back the generator goes on by itself.
func TestLeaseDatabaseDown(t *testing.T) {
	for _, kind := range dbtest.ServerKinds {
		t.Run(kind, func(t *testing.T) { testLeaseDatabaseDown(t, kind) })
	}
}

func testLeaseDatabaseDown(t *testing.T, kind string) {
	const (
		// Reservations reach the horizon and a third of the TTL past the
		// clock, 3 s: short enough to drain flat out.
		ttl, horizon = 3 * time.Second, 2 * time.Second
		// short is an outage well within that lead, taken at a pace the
		// clock keeps up with: 100 IDs a second, of 256 a second.
		short, pace = time.Second, 10 * time.Millisecond
	)
	srv := dbtest.Start(t, kind)
	db := srv.Server().Open(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := worker.EnsureSchema(ctx, worker.Config{DB: db}); err != nil {
		t.Fatal(err)
	}
	l, err := worker.NewLeased(worker.Config{DB: db, LeaseTTL: ttl, LeaseHorizon: horizon})
	if err != nil {
		t.Fatal(err)
	}
	g, lease := leasetest.OnLease[uidgen.Lease](t, l, cached.Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 40, WorkerBits: 3, SeqBits: 8})})

	var ids []int64
	// checkReserved fails t if an ID taken uses a second past the reservation.
	checkReserved := func(t *testing.T, from int) {
		t.Helper()
		for _, id := range ids[from:] {
			if sec := g.Layout().Parse(id).Time.Unix(); sec > lease.Reserved() {
				t.Fatalf("ID %d is of second %d, past the reservation to %d", id, sec, lease.Reserved())
			}
		}
	}
	for _, tt := range []struct {
		name          string
		fail, recover func()
	}{
		{"crash", srv.Kill, srv.Restart},
		{"no answer", srv.Pause, srv.Resume},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.fail()
			down := time.Now()
			if left := time.Unix(lease.Reserved()+1, 0).Sub(down); left <= short {
				t.Fatalf("the reservation runs out in %v, before the %v outage ends", left, short)
			}
			from := len(ids)
			for time.Since(down) < short {
				id, err := g.NextID()
				if err != nil {
					t.Fatalf("%v into an outage shorter than the reservation: %v", time.Since(down), err)
				}
				ids = append(ids, id)
				time.Sleep(pace) // a light load, not a wait for an event
			}
			checkReserved(t, from)

			// A renewal to a paused server fails only at its timeout, a
			// third of the TTL; the take that fails below says why the
			// renewal failed, so it waits for one to have.
			for renewal := lease.(interface{ RenewalErr() error }); renewal.RenewalErr() == nil; time.Sleep(10 * time.Millisecond) {
				if time.Since(down) > 10*time.Second {
					t.Fatalf("%v into the outage, no renewal has failed", time.Since(down))
				}
			}

			// Flat out the reserved seconds run out, and the take after
			// them waits the default second. None is taken from the
			// database, so at most the reserved seconds' IDs and a ring
			// more come first.
			from = len(ids)
			perSecond := g.Layout().Bits().MaxSequence() + 1
			limit := int((lease.Reserved()-time.Now().Unix()+1)*perSecond + g.Stats().Size)
			batch := make([]int64, 1024)
			for len(ids)-from <= limit {
				n, err := g.NextIDs(batch)
				ids = append(ids, batch[:n]...)
				if err == nil {
					continue
				}
				if !errors.Is(err, ringbuffer.ErrEmpty) || errors.Is(err, uidgen.ErrLeaseLost) ||
					!strings.Contains(err.Error(), "the reservation of worker ID 1 runs out with second") ||
					!strings.Contains(err.Error(), "the last renewal failed") ||
					!errors.Is(err, uidgen.ErrUnreachable) && !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("a take past the reservation: %v; want ringbuffer.ErrEmpty, saying the reservation runs out and why the renewal failed", err)
				}
				t.Logf("%d IDs flat out, then: %v", len(ids)-from, err)
				break
			}
			if len(ids)-from > limit {
				t.Fatalf("%d IDs flat out with the database down, and no failure", len(ids)-from)
			}
			checkReserved(t, from)
			if sec := g.Layout().Parse(ids[len(ids)-1]).Time.Unix(); sec != lease.Reserved() {
				t.Errorf("the last ID before the failure is of second %d, want the last reserved, %d", sec, lease.Reserved())
			}

			tt.recover()
			back := time.Now()
			var err error
			for {
				var id int64
				if id, err = g.NextID(); err == nil {
					ids = append(ids, id)
					break
				}
				if time.Since(back) > 10*time.Second {
					t.Fatalf("the database back for %v, and NextID still fails: %v", time.Since(back), err)
				}
			}
			t.Logf("NextID works again %v after the database came back", time.Since(back).Round(time.Millisecond))
		})
	}
	idtest.Check(t, g, [][]int64{ids})
	if err := g.Close(); err != nil {
		t.Errorf("Close after the outages: %v", err)
	}
}

// TestLeaseRidesOutOutage: with the default lease TTL and horizon, a
// generator taking IDs at a steady pace on a leased worker ID fails no take
// while its database does not answer for three minutes, longer than a
// managed failover, nor while it is down for a minute after a crash, and
// renews within seconds of it answering again. It waits out the real
// minutes, so it runs only at full size, and on both servers at once.
func TestLeaseRidesOutOutage(t *testing.T) {
	if sizetest.Small() {
		t.Skip("waits out a three-minute outage: full size only (not under -race or -short)")
	}
	t.Parallel() // beside TestFailover, which also waits minutes
	for _, kind := range dbtest.ServerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			testLeaseRidesOutOutage(t, kind)
		})
	}
}

func testLeaseRidesOutOutage(t *testing.T, kind string) {
	const pace = 10 * time.Millisecond // 100 IDs a second: a steady load the clock keeps up with
	srv := dbtest.Start(t, kind)
	db := srv.Server().Open(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := worker.EnsureSchema(ctx, worker.Config{DB: db}); err != nil {
		t.Fatal(err)
	}
	l, err := worker.NewLeased(worker.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	g, lease := leasetest.OnLease[uidgen.Lease](t, l, cached.Config{})

	var ids []int64
	take := func(until time.Time) {
		t.Helper()
		idtest.TakeUntil(t, &ids, g.NextID, pace, until)
	}
	take(time.Now().Add(time.Second))
	for _, o := range []struct {
		name          string
		fail, recover func()
		outage        time.Duration
	}{
		{"paused", srv.Pause, srv.Resume, 3 * time.Minute},
		{"crashed", srv.Kill, srv.Restart, time.Minute},
	} {
		o.fail()
		down := time.Now()
		take(down.Add(o.outage))
		reserved := lease.Reserved()
		o.recover()
		back := time.Now()
		for lease.Reserved() == reserved {
			if time.Since(back) > 10*time.Second {
				t.Fatalf("%s: the database back for %v, and the reservation has not moved from %d", o.name, time.Since(back), reserved)
			}
			take(time.Now().Add(100 * time.Millisecond))
		}
		t.Logf("%s for %v: %d IDs so far, none failed; the lease renewed %v after the database came back",
			o.name, o.outage, len(ids), time.Since(back).Round(time.Millisecond))
	}
	if s := g.Stats(); s.TakesFailed != 0 || s.Lease.Lost {
		t.Errorf("Stats %+v: want no failed take and the lease kept", s)
	}
	idtest.Check(t, g, [][]int64{ids})
}
