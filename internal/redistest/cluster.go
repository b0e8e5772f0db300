package redistest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// slots is how many hash slots a Redis Cluster shares among its primaries.
const slots = 16384

// Node timeouts, in milliseconds: how long a node may not answer before
// the others mark it failed. Without replicas, longer than the outages the
// tests make, so that a server back from one serves its slots at once (no
// failover could change who serves them anyway). With replicas, short, so
// that a test's failover takes seconds, and long enough that a 2-core
// machine under -race, whose processes stall for hundreds of
// milliseconds, makes no failover the test did not cause.
const (
	nodeTimeoutMillis         = 15_000
	failoverNodeTimeoutMillis = 3_000
)

// Cluster is a Redis Cluster, each node a Server of its own (cluster mode,
// an append-only file synced at every write, its node table in its
// directory, so that a restarted server rejoins as the same node).
type Cluster struct {
	// Primaries are the servers started as primaries: primary i serves
	// the i-th of len(Primaries) equal runs of the slots, until a
	// failover makes one of its replicas serve them.
	Primaries []*Server

	// replicas[i] are the servers started as replicas of Primaries[i].
	replicas [][]*Server
}

// StartCluster starts primaries servers in cluster mode, each with an
// equal run of the hash slots and replicas replicas of its own, introduces
// them to each other (CLUSTER MEET), and waits until every one reports the
// cluster whole (every slot served, every node known) and every primary
// has its replicas online. Under -short it skips the test: the fast loop
// starts single servers and no Cluster (docs/testing.md).
func StartCluster(t testing.TB, primaries, replicas int) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs a Redis Cluster of its own (%d primaries, %d replicas each); runs in the full suite (without -short)", primaries, replicas)
	}
	timeout := nodeTimeoutMillis
	if replicas > 0 {
		timeout = failoverNodeTimeoutMillis
	}
	start := func() *Server {
		return Start(t, "cluster-enabled yes", "cluster-config-file nodes.conf", "cluster-node-timeout "+strconv.Itoa(timeout))
	}
	c := &Cluster{replicas: make([][]*Server, primaries)}
	for i := range primaries {
		c.Primaries = append(c.Primaries, start())
		for range replicas {
			c.replicas[i] = append(c.replicas[i], start())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for i, s := range c.Primaries {
		if err := s.do(ctx, func(cl *redis.Client) error {
			return cl.ClusterAddSlotsRange(ctx, i*slots/primaries, (i+1)*slots/primaries-1).Err()
		}); err != nil {
			t.Fatal(err)
		}
	}
	all := c.servers()
	for _, s := range all[1:] {
		if err := s.do(ctx, func(cl *redis.Client) error {
			return cl.ClusterMeet(ctx, "127.0.0.1", strconv.Itoa(all[0].Port())).Err()
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.waitWhole(ctx); err != nil {
		t.Fatal(err)
	}
	for i, p := range c.Primaries {
		var id string
		if err := p.do(ctx, func(cl *redis.Client) (err error) {
			id, err = cl.ClusterMyID(ctx).Result()
			return err
		}); err != nil {
			t.Fatal(err)
		}
		for _, r := range c.replicas[i] {
			if err := r.do(ctx, func(cl *redis.Client) error { return cl.ClusterReplicate(ctx, id).Err() }); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.WaitReplicas(ctx, replicas); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// do runs f on a client of s, for StartCluster, and names s in its error.
func (s *Server) do(ctx context.Context, f func(*redis.Client) error) error {
	cl := s.NewClient()
	defer cl.Close()
	if err := f(cl); err != nil {
		return fmt.Errorf("redistest: cluster node %s: %w", s.Addr(), err)
	}
	return nil
}

// servers returns every server of the cluster, the primaries first.
func (c *Cluster) servers() []*Server {
	all := append([]*Server(nil), c.Primaries...)
	for _, rs := range c.replicas {
		all = append(all, rs...)
	}
	return all
}

// waitWhole waits, within ctx, until every server says cluster_state:ok and
// knows every other.
func (c *Cluster) waitWhole(ctx context.Context) error {
	all := c.servers()
	want := fmt.Sprintf("cluster_known_nodes:%d", len(all))
	for _, s := range all {
		cl := s.NewClient()
		last := "no answer"
		for {
			info, err := cl.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, want) {
				break
			}
			if err != nil {
				last = err.Error()
			} else {
				last = strings.Join(strings.Fields(info), " ")
			}
			select {
			case <-ctx.Done():
				cl.Close()
				return fmt.Errorf("redistest: cluster node %s is not whole: %w; CLUSTER INFO: %s", s.Addr(), ctx.Err(), last)
			case <-time.After(pollEvery):
			}
		}
		cl.Close()
	}
	return nil
}

// Client returns a cluster client of the servers whose contexts bound every
// request, closed when the test ends.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	var addrs []string
	for _, s := range c.servers() {
		addrs = append(addrs, s.Addr())
	}
	cl := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ContextTimeoutEnabled: true,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
	t.Cleanup(func() { cl.Close() })
	return cl
}

// Owner returns the primary that StartCluster gave key's hash slot.
func (c *Cluster) Owner(t testing.TB, key string) *Server {
	t.Helper()
	return c.Primaries[c.shard(t, key)]
}

// ReplicasOf returns the servers started as replicas of the primary that
// StartCluster gave key's hash slot: after a failover, one of them serves
// the slot.
func (c *Cluster) ReplicasOf(t testing.TB, key string) []*Server {
	t.Helper()
	return c.replicas[c.shard(t, key)]
}

// shard returns the index of the primary StartCluster gave key's slot.
func (c *Cluster) shard(t testing.TB, key string) int {
	t.Helper()
	cl := c.Primaries[0].NewClient()
	defer cl.Close()
	slot, err := cl.ClusterKeySlot(context.Background(), key).Result()
	if err != nil {
		t.Fatalf("redistest: CLUSTER KEYSLOT %s: %v", key, err)
	}
	n := len(c.Primaries)
	i := 0
	for int(slot) > (i+1)*slots/n-1 {
		i++
	}
	return i
}
