package redisworker

import (
	"errors"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/redistest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// TestOutage: a cached generator taking IDs at a steady pace on a worker ID
// leased from Redis fails no take while the server is paused (SIGSTOP), or
// killed and restarted from its append-only file, for an outage within the
// lease's horizon and its TTL; once the server is back the lease renews,
// under the same held key, and the reservation is where it was.
func TestOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a throwaway Redis server to pause, kill and restart; runs in the full suite (without -short)")
	}
	for _, tt := range []struct {
		name     string
		down, up func(s *redistest.Server)
	}{
		{"paused", (*redistest.Server).Pause, (*redistest.Server).Resume},
		{"killed and restarted", (*redistest.Server).Kill, (*redistest.Server).Restart},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFleet(t)
			testOutage(t, f, fault{down: func() { tt.down(f.s) }, up: func() { tt.up(f.s) }, last: lasting(outageFor())})
		})
	}
}

// outageFor is how long the tests keep a server down.
func outageFor() time.Duration { return time.Duration(sizetest.Pick(8, 3)) * time.Second }

// fault is what testOutage puts a fleet's deployment through.
type fault struct {
	replicas int                              // Config.Replicas of the lease
	down, up func()                           // start and end the outage
	last     func(take func(d time.Duration)) // takes IDs while the outage lasts
}

// lasting returns a fault's last that takes IDs for d.
func lasting(d time.Duration) func(take func(time.Duration)) {
	return func(take func(time.Duration)) { take(d) }
}

// testOutage: a cached generator on a worker ID leased from f, taking IDs
// at a steady pace, fails no take through the fault, which lasts within
// the lease's horizon and its TTL; once it is over the lease renews, under
// the same held key, and the reservation is where the lease put it.
func testOutage(t *testing.T, f fleet, fault fault) {
	const (
		pace = 10 * time.Millisecond // 100 IDs a second: a steady load the clock keeps up with
		// The held key, renewed as the outage starts, outlives the outage,
		// a renewal that waits out the client's timeout in it, and the
		// retries after it.
		ttl     = 30 * time.Second
		horizon = time.Minute // well beyond the outage
	)
	l := f.leased(t, Config{LeaseTTL: ttl, LeaseHorizon: horizon, Replicas: fault.replicas})
	g, lease := leasetest.OnLease[*lease](t, l, cached.Config{})
	id := lease.WorkerID()

	var ids []int64
	take := func(d time.Duration) {
		t.Helper()
		idtest.TakeUntil(t, &ids, g.NextID, pace, time.Now().Add(d))
	}
	take(time.Second)
	renewNow(t, lease)
	value, reserved := f.held(t, id), lease.Reserved()

	fault.down()
	start := time.Now()
	fault.last(take)
	outage := time.Since(start)
	if err := lease.RenewNow(testContext(t)); err == nil || errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("a renewal while the server is down: %v, want the client's error", err)
	}
	fault.up()
	back := time.Now()
	for {
		err := lease.RenewNow(testContext(t))
		if err == nil {
			break
		}
		if errors.Is(err, uidgen.ErrLeaseLost) || time.Since(back) > 20*time.Second {
			t.Fatalf("the server back for %v, and the lease does not renew: %v", time.Since(back), err)
		}
		take(100 * time.Millisecond)
	}
	t.Logf("server down for %v: %d IDs, none failed; the lease renewed %v after it came back",
		outage.Round(time.Millisecond), len(ids), time.Since(back).Round(time.Millisecond))
	if got := f.held(t, id); got != value {
		t.Errorf("held:%d holds %q after the outage, want the holder's %q", id, got, value)
	}
	if got := f.reserved(t, id); got != lease.Reserved() || got <= reserved {
		t.Errorf("reserved:%d holds %d after the renewal, want the lease's Reserved() %d, above %d before the outage",
			id, got, lease.Reserved(), reserved)
	}
	take(time.Second)
	if s := g.Stats(); s.TakesFailed != 0 || s.Lease.Lost {
		t.Errorf("Stats %+v: want no failed take and the lease kept", s)
	}
	idtest.Check(t, g, [][]int64{ids})
	if err := g.Close(); err != nil {
		t.Errorf("Close after the outage: %v", err)
	}
}
