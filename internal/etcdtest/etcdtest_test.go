package etcdtest

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// faultTimeout bounds each step of the tests below: an election takes a
// second or two, a put on a healthy cluster milliseconds.
const faultTimeout = 15 * time.Second

// TestFailover proves the harness does what fault tests rely on: a
// three-member cluster answers, survives the leader's kill with a new
// leader among the others, takes the killed member back on Restart, and
// takes writes through the other members while a follower is paused.
func TestFailover(t *testing.T) {
	c := Start(t, 3)
	if got := len(c.Endpoints()); got != 3 {
		t.Fatalf("Endpoints() holds %d URLs, want 3", got)
	}
	put(t, c, nil, "k", "v1")
	if got := get(t, c, nil, "k"); got != "v1" {
		t.Fatalf("get k = %q, want v1", got)
	}

	old := waitLeader(t, c, -1)
	oldPID := c.Member(old).PID()
	c.Member(old).Kill()
	if pid := c.Member(old).PID(); pid != 0 {
		t.Fatalf("PID() of a killed member = %d, want 0", pid)
	}
	if err := syscall.Kill(oldPID, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the killed member's pid %d: kill -0 = %v, want ESRCH", oldPID, err)
	}
	leader := waitLeader(t, c, old)
	put(t, c, others(c, old), "k", "v2")

	c.Member(old).Restart()
	waitHealthy(t, c)
	// The restarted member answers a linearizable read alone, and has the
	// write it missed.
	if got := get(t, c, []string{c.Member(old).Endpoint()}, "k"); got != "v2" {
		t.Fatalf("get k through restarted member %d = %q, want v2", old, got)
	}

	leader = waitLeader(t, c, -1)
	follower := (leader + 1) % 3
	c.Member(follower).Pause()
	put(t, c, others(c, follower), "k", "v3")
	c.Member(follower).Resume()
	waitHealthy(t, c)
	if got := get(t, c, []string{c.Member(follower).Endpoint()}, "k"); got != "v3" {
		t.Fatalf("get k through resumed member %d = %q, want v3", follower, got)
	}
}

// TestStop proves a cleanly stopped member restarts, and a single-member
// cluster works.
func TestStop(t *testing.T) {
	c := Start(t, 1)
	put(t, c, nil, "k", "v1")
	c.Member(0).Stop()
	if _, err := c.Leader(context.Background()); !errors.Is(err, ErrNoLeader) {
		t.Fatalf("Leader() with every member stopped = %v, want ErrNoLeader", err)
	}
	c.Member(0).Restart()
	waitHealthy(t, c)
	if got := get(t, c, nil, "k"); got != "v1" {
		t.Fatalf("get k after restart = %q, want v1", got)
	}
}

// TestCleanupEndsPaused proves no member outlives its test, not even a
// paused one, which SIGTERM alone would not end.
func TestCleanupEndsPaused(t *testing.T) {
	var pid int
	t.Run("paused", func(t *testing.T) {
		c := Start(t, 1)
		pid = c.Member(0).PID()
		c.Member(0).Pause()
	})
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the paused member's pid %d after its test: kill -0 = %v, want ESRCH", pid, err)
	}
}

// others returns the endpoints of every member but i.
func others(c *Cluster, i int) []string {
	var eps []string
	for j, ep := range c.Endpoints() {
		if j != i {
			eps = append(eps, ep)
		}
	}
	return eps
}

// waitLeader waits until a member other than not is leader, and returns
// its index; not = -1 accepts any.
func waitLeader(t *testing.T, c *Cluster, not int) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), faultTimeout)
	defer cancel()
	for {
		i, err := c.Leader(ctx)
		if err == nil && i != not {
			return i
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no leader other than member %d within %v: leader %d, %v", not, faultTimeout, i, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitHealthy waits until the cluster is healthy.
func waitHealthy(t *testing.T, c *Cluster) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), faultTimeout)
	defer cancel()
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
}

// put writes key through a client on endpoints (all when nil).
func put(t *testing.T, c *Cluster, endpoints []string, key, value string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), faultTimeout)
	defer cancel()
	if _, err := c.Client(t, endpoints...).Put(ctx, key, value); err != nil {
		t.Fatalf("put %s=%s through %v: %v", key, value, endpoints, err)
	}
}

// get reads key linearizably through a client on endpoints (all when nil).
func get(t *testing.T, c *Cluster, endpoints []string, key string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), faultTimeout)
	defer cancel()
	resp, err := c.Client(t, endpoints...).Get(ctx, key)
	if err != nil {
		t.Fatalf("get %s through %v: %v", key, endpoints, err)
	}
	if len(resp.Kvs) != 1 {
		t.Fatalf("get %s through %v: %d keys, want 1", key, endpoints, len(resp.Kvs))
	}
	return string(resp.Kvs[0].Value)
}
