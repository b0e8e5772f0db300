package etcdworker

import (
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/etcdtest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// TestLeaseQuorumLost: with the default lease TTL and horizon, a cached
// generator taking IDs at a steady pace on a worker ID leased from a
// three-member cluster fails no take while two members are down for a
// minute, so that the cluster has no quorum and commits nothing, and renews
// within seconds of their return. It waits out the real minute, so it runs
// only at full size.
func TestLeaseQuorumLost(t *testing.T) {
	if sizetest.Small() {
		t.Skip("waits out a minute without quorum: full size only (not under -race or -short)")
	}
	t.Parallel()
	const (
		pace   = 10 * time.Millisecond // 100 IDs a second: a steady load the clock keeps up with
		outage = time.Minute
	)
	cluster := etcdtest.Start(t, 3)
	l, err := NewLeased(Config{Client: cluster.Client(t), Prefix: "/quorum/"})
	if err != nil {
		t.Fatal(err)
	}
	g, lease := leasetest.OnLease[*lease](t, l, cached.Config{})

	var ids []int64
	take := func(until time.Time) {
		t.Helper()
		idtest.TakeUntil(t, &ids, g.NextID, pace, until)
	}
	take(time.Now().Add(time.Second))

	// The leader and one follower go, so the one left knows it has no
	// quorum whichever it was.
	leader, err := cluster.Leader(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	gone := []*etcdtest.Member{cluster.Member(leader), cluster.Member((leader + 1) % 3)}
	for _, m := range gone {
		m.Kill()
	}
	take(time.Now().Add(outage))
	if err := lease.RenewalErr(); err == nil {
		t.Errorf("the last renewal in a cluster without quorum succeeded, want it to fail")
	}
	reserved := lease.Reserved()
	for _, m := range gone {
		m.Restart()
	}
	back := time.Now()
	for lease.Reserved() == reserved {
		if time.Since(back) > 20*time.Second {
			t.Fatalf("the members back for %v, and the reservation has not moved from %d: %v", time.Since(back), reserved, lease.RenewalErr())
		}
		take(time.Now().Add(100 * time.Millisecond))
	}
	t.Logf("two of three members down for %v: %d IDs, none failed; the lease renewed %v after they came back",
		outage, len(ids), time.Since(back).Round(time.Millisecond))
	if s := g.Stats(); s.TakesFailed != 0 || s.Lease.Lost {
		t.Errorf("Stats %+v: want no failed take and the lease kept", s)
	}
	idtest.Check(t, g, [][]int64{ids})
}
