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

// nodeTimeoutMillis is how long a node may not answer before the others
// mark it failed. Longer than the outages the tests make, so that a server
// back from one serves its slots at once, as no failover (there are no
// replicas) would change who serves them anyway.
const nodeTimeoutMillis = 15_000

// Cluster is a Redis Cluster of primaries only, each a Server of its own
// (cluster mode, an append-only file synced at every write, its node table
// in its directory, so that a restarted server rejoins as the same node
// with the same slots).
type Cluster struct {
	Servers []*Server
}

// StartCluster starts n servers in cluster mode, gives each an equal run
// of the hash slots, introduces them to each other (CLUSTER MEET), and
// waits until every one reports the cluster whole: every slot served, all
// n nodes known.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	c := &Cluster{}
	for range n {
		c.Servers = append(c.Servers, Start(t, "cluster-enabled yes", "cluster-config-file nodes.conf",
			"cluster-node-timeout "+strconv.Itoa(nodeTimeoutMillis)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for i, s := range c.Servers {
		cl := s.NewClient()
		err := cl.ClusterAddSlotsRange(ctx, i*slots/n, (i+1)*slots/n-1).Err()
		if err == nil && i > 0 {
			err = cl.ClusterMeet(ctx, "127.0.0.1", strconv.Itoa(c.Servers[0].Port())).Err()
		}
		cl.Close()
		if err != nil {
			t.Fatalf("redistest: cluster node %s: %v", s.Addr(), err)
		}
	}
	if err := c.waitWhole(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// waitWhole waits, within ctx, until every server says cluster_state:ok and
// knows every other.
func (c *Cluster) waitWhole(ctx context.Context) error {
	want := fmt.Sprintf("cluster_known_nodes:%d", len(c.Servers))
	for _, s := range c.Servers {
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
	addrs := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		addrs[i] = s.Addr()
	}
	cl := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ContextTimeoutEnabled: true,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
	t.Cleanup(func() { cl.Close() })
	return cl
}

// Owner returns the server that serves key's hash slot: StartCluster gave
// server i the i-th of n equal runs of slots.
func (c *Cluster) Owner(t testing.TB, key string) *Server {
	t.Helper()
	cl := c.Servers[0].NewClient()
	defer cl.Close()
	slot, err := cl.ClusterKeySlot(context.Background(), key).Result()
	if err != nil {
		t.Fatalf("redistest: CLUSTER KEYSLOT %s: %v", key, err)
	}
	n := len(c.Servers)
	i := 0
	for int(slot) > (i+1)*slots/n-1 {
		i++
	}
	return c.Servers[i]
}
