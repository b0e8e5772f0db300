package redisworker

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/redistest"
)

// TestCluster: on a Redis Cluster of three primaries, through a cluster
// client, leases do what they do on one server. Every key of a fleet is in
// its prefix's slot, on the one primary that serves it, a prefix without a
// hash tag included, so that no script, each touching several keys, meets
// CROSSSLOT, and of whose durability a Leased warns; the lease stores'
// conformance suite passes, the generators on a lease included; and when
// the fleet's primary is killed and restarted from its append-only file,
// the lease rides it out as on one server (TestOutage). The subtests share
// the cluster, each under a prefix of its own; the restart comes last.
func TestCluster(t *testing.T) {
	c := redistest.StartCluster(t, 3, 0)
	cl := c.Client(t)
	on := func(t *testing.T, prefix string) fleet {
		tagged, err := tagged(prefix)
		if err != nil {
			t.Fatal(err)
		}
		return fleet{s: c.Owner(t, tagged), c: cl, prefix: tagged}
	}

	t.Run("keys in one slot", func(t *testing.T) {
		f := on(t, "orders:")
		// The fleet's primary syncs every second, the others never: the
		// durability warning is of the primary that runs the scripts.
		ctx := testContext(t)
		for _, s := range c.Primaries {
			setting := "no"
			if s == f.s {
				setting = "everysec"
			}
			if err := s.Client(t).ConfigSet(ctx, "appendfsync", setting).Err(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Client(t).ConfigSet(context.Background(), "appendfsync", "always") })
		}
		var log bytes.Buffer
		l, err := NewLeased(Config{Client: cl, Prefix: "orders:", Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		a, b, _ := mustLease(t, l, 7), mustLease(t, l, 7), mustLease(t, l, 7)
		if got := log.String(); strings.Count(got, "appendfsync is everysec") != 1 || strings.Contains(got, "appendfsync is no") {
			t.Errorf("log %q: want one warning of everysec, the fleet's primary's, and none of the others'", got)
		}
		if err := b.Release(ctx, b.First()); err != nil {
			t.Fatal(err)
		}
		rows, err := List(ctx, Config{Client: cl, Prefix: "orders:"})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 3 || !rows[0].Held || rows[1].Held || !rows[2].Held || rows[0].Reserved != a.Reserved() {
			t.Errorf("List: %+v, want IDs 1 and 3 held, 2 free", rows)
		}
		want := []string{"{orders:}held:1", "{orders:}held:3", "{orders:}ids",
			"{orders:}reserved:1", "{orders:}reserved:2", "{orders:}reserved:3"}
		for _, s := range c.Primaries {
			keys, err := s.Client(t).Keys(ctx, "*").Result()
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(keys)
			if s == f.s && !slices.Equal(keys, want) {
				t.Errorf("keys on %s, the primary of the fleet's slot: %q, want %q", s.Addr(), keys, want)
			}
			if s != f.s && len(keys) != 0 {
				t.Errorf("keys on %s, not the fleet's primary: %q, want none", s.Addr(), keys)
			}
		}
	})

	t.Run("conformance", func(t *testing.T) { leasetest.Run(t, clusterStore{on}) })

	t.Run("primary restarted", func(t *testing.T) {
		f := on(t, "{outage}:")
		testOutage(t, f, fault{down: f.s.Kill, up: f.s.Restart, last: lasting(outageFor())})
	})
}

// TestClusterFailover: on a Cluster of three primaries with a replica
// each, a take with Replicas 1 waits for the replica of the fleet's own
// primary, and a lease with Replicas 1 rides out the Cluster's own failover of
// the fleet's primary, SIGKILLed: testOutage's generator fails no take,
// and once the replica is promoted and the old primary is back as its
// replica, the lease renews under the same held key, and the promoted
// replica holds the reservation the lease last had acknowledged.
func TestClusterFailover(t *testing.T) {
	c := redistest.StartCluster(t, 3, 1)
	f := fleet{c: c.Client(t), prefix: "{failover}:"}
	f.s = c.Owner(t, f.prefix)
	replica := c.ReplicasOf(t, f.prefix)[0]
	// The WAIT goes to the fleet's primary: with its replica paused a take
	// finds none acknowledging, while every other primary's replica runs.
	// A paused replica is at most marked failed: no failover comes of it.
	// The client reads the Cluster's slots first, from any node, which
	// must not be the paused one.
	if err := f.c.Ping(testContext(t)).Err(); err != nil {
		t.Fatal(err)
	}
	replica.Pause()
	l := f.leased(t, Config{Replicas: 1, ReplicaTimeout: 100 * time.Millisecond})
	l.poll = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(testContext(t), 5*time.Second)
	_, err := l.LeaseWorkerID(ctx, 7)
	cancel()
	replica.Resume()
	// The take's WAIT answers "0 of 1" in time on an idle machine; on a
	// loaded one the client's read of the reserve may time out first (its
	// reload of the Cluster's slots can land on the paused node), which is
	// ErrReplicas all the same: no lease comes of a reservation no replica
	// acknowledged.
	if !errors.Is(err, ErrReplicas) || !strings.Contains(err.Error(), "0 of 1 replicas") && !strings.Contains(err.Error(), "i/o timeout") {
		t.Fatalf("LeaseWorkerID with the fleet's replica paused: %v, want %q naming 0 of 1 (or the reserve's read timed out)", err, ErrReplicas)
	}

	promoted := func() bool {
		info, err := replica.Client(t).Info(testContext(t), "replication").Result()
		return err == nil && strings.Contains(info, "role:master")
	}
	testOutage(t, f, fault{
		replicas: 1,
		down:     f.s.Kill,
		last: func(take func(time.Duration)) {
			deadline := time.Now().Add(time.Minute) // the lease's horizon
			for !promoted() {
				if time.Now().After(deadline) {
					t.Fatalf("the replica %s of the killed primary is not promoted after a minute", replica.Addr())
				}
				take(100 * time.Millisecond)
			}
		},
		up: f.s.Restart, // it comes back as the promoted replica's replica
	})
}

// clusterStore is a leasetest.Store whose fleets share one Cluster, each in
// the slot of its own prefix.
type clusterStore struct {
	on func(t *testing.T, prefix string) fleet
}

func (s clusterStore) Fleet(t *testing.T) leasetest.Fleet { return s.on(t, "{"+t.Name()+"}:") }
