package redistest_test

import (
	"context"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/redistest"
)

// TestSentinelsPromote: three Sentinels promote the replica once the
// primary is SIGKILLed; the old primary, restarted from its append-only
// file, comes back as the new primary's replica, and a failover client
// reads through the new primary what it wrote through the old.
func TestSentinelsPromote(t *testing.T) {
	primary := redistest.Start(t)
	replica := redistest.StartReplica(t, primary)
	sentinels := redistest.StartSentinels(t, primary, "kit", 3)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := primary.WaitReplicas(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := sentinels.WaitPrimary(ctx, primary.Addr(), 1); err != nil {
		t.Fatal(err)
	}
	c := sentinels.NewClient()
	defer c.Close()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Do(ctx, "WAIT", 1, 5000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT 1: %d, %v", n, err)
	}

	primary.Kill()
	killed := time.Now()
	addr, err := sentinels.WaitPromotion(ctx, primary.Addr())
	if err != nil {
		t.Fatal(err)
	}
	promoted := time.Since(killed)
	if addr != replica.Addr() {
		t.Fatalf("the Sentinels promoted %s, want the replica %s", addr, replica.Addr())
	}
	primary.RestartReplicaOf(replica)
	// The pair is whole again once one of them is a primary with the other
	// its replica: the promoted one, unless on a loaded machine the
	// Sentinels, finding it slow for downAfterMillis, fail over once more.
	whole := func(s *redistest.Server) error {
		short, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return s.WaitReplicas(short, 1)
	}
	for {
		errReplica, errPrimary := whole(replica), whole(primary)
		if errReplica == nil || errPrimary == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("neither server is a primary with the other its replica:\n%v\n%v", errReplica, errPrimary)
		}
	}
	if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET k through the failover client: %q, %v; want v", v, err)
	}
	t.Logf("the replica promoted %v after the kill; the old primary its replica %v after the kill",
		promoted.Round(time.Millisecond), time.Since(killed).Round(time.Millisecond))
}
