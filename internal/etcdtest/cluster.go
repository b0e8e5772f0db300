// Package etcdtest runs a throwaway etcd cluster of a test's own, for tests
// that kill, stop, pause and restart etcd members under a client: this
// module's fault tests, the benchmarks in bench/, and a fleet's own tests of
// what it builds on etcdworker.
//
// A cluster's members are etcd processes (Debian's etcd-server, 3.4) on free
// ports of 127.0.0.1, each with a temporary data directory and a log file in
// it. Every process the package starts is ended by its process ID when the
// test ends, paused or not, and a test that failed shows the end of each
// member's log. The package fails a test, and never skips it, where the etcd
// binary is missing: a fault test that silently does not run proves nothing.
package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seed4d941b13/uidgen/internal/etcdclient"
)

// Raft timing, in milliseconds: etcd's defaults. A member of a 2-core CI
// machine under the race detector can stall for hundreds of milliseconds
// (an fsync, a GC, the scheduler); a shorter election timeout would make
// elections the test did not cause, which a fault test would misread as
// its own. A longer one makes every failover the tests wait for slower:
// at these values a new leader takes a second or two after a kill.
const (
	heartbeatMillis = 100
	electionMillis  = 1000
)

const (
	// clusterUp bounds how long Start waits for a new cluster to elect a
	// leader and answer a linearizable read.
	clusterUp = 30 * time.Second

	// dialTimeout is the clients' DialTimeout: a live member on loopback
	// answers in milliseconds.
	dialTimeout = 3 * time.Second

	// probeTimeout bounds each status request and health read of one member:
	// a live member answers in milliseconds, a paused one never, and one
	// without a leader answers a linearizable read only after an election.
	probeTimeout = time.Second

	// probeEvery is how often WaitHealthy asks again.
	probeEvery = 50 * time.Millisecond

	// stopGrace is how long Stop waits after SIGTERM before SIGKILL: etcd
	// shuts down in well under a second when it is not stalled.
	stopGrace = 5 * time.Second

	// cleanupGrace is the same for the test's end, which nobody needs to
	// be clean: a member killed mid-write is only a directory to remove.
	cleanupGrace = 2 * time.Second

	// exitTimeout bounds the wait for a SIGKILLed process to exit.
	exitTimeout = 10 * time.Second
)

// Errors of Leader and WaitHealthy, tested with errors.Is.
var (
	// ErrNoLeader: no running, unpaused member says it is the leader.
	ErrNoLeader = errors.New("etcdtest: no member is leader")

	// ErrExited: a member the test did not Kill or Stop has exited.
	ErrExited = errors.New("etcdtest: a member exited by itself")
)

// Cluster is a throwaway etcd cluster that Start made for one test.
// Endpoints, Leader and WaitHealthy, and a Member's Endpoint and PID, may be
// called from any goroutine; the methods that fail the test (Member, Client,
// and Kill, Stop, Restart, Pause and Resume) belong, as t.Fatal does, to the
// test's goroutine.
type Cluster struct {
	t       testing.TB
	bin     string // the etcd binary
	dir     string // holds a directory for each member
	token   string // --initial-cluster-token, unique to this cluster
	members []*Member

	// mu guards each member's proc and paused: the test's goroutine writes
	// them as it starts and ends processes, Leader and WaitHealthy read them
	// from any goroutine.
	mu sync.Mutex
}

// Start starts a cluster of n members on free ports of 127.0.0.1, each with
// a temporary data directory, and waits until it has a leader and every
// member answers a linearizable read. The test's end ends every process the
// cluster started, by its process ID, and removes the directories; a test
// that failed logs the end of each member's log first.
//
// Start fails the test if n is below 1, if it finds no etcd binary (in
// /usr/bin or on $PATH), or if the cluster is not healthy within 30 s.
// Under -short it skips the test where n is above 1: the fast loop starts
// single members, which the etcd leaser's conformance suite runs on, and
// no cluster (docs/testing.md).
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	if n < 1 {
		t.Fatalf("etcdtest: a cluster needs at least 1 member, not %d", n)
	}
	if n > 1 && testing.Short() {
		t.Skipf("needs a %d-member etcd cluster of its own; runs in the full suite (without -short)", n)
	}
	bin, err := etcdBinary()
	if err != nil {
		t.Fatalf("etcdtest: %v: install Debian's etcd-server (apt-get install etcd-server)", err)
	}
	dir, err := os.MkdirTemp("", "etcdtest")
	if err != nil {
		t.Fatalf("etcdtest: %v", err)
	}
	c := &Cluster{t: t, bin: bin, dir: dir, token: filepath.Base(dir)}
	t.Cleanup(c.remove)

	ports := freePorts(t, 2*n)
	for i := range n {
		m := &Member{
			c:          c,
			i:          i,
			name:       "m" + strconv.Itoa(i),
			dir:        filepath.Join(dir, "m"+strconv.Itoa(i)),
			clientPort: ports[2*i],
			peerPort:   ports[2*i+1],
		}
		if err := os.Mkdir(m.dir, 0o700); err != nil {
			t.Fatalf("etcdtest: %v", err)
		}
		c.members = append(c.members, m)
	}
	for _, m := range c.members {
		m.start("new")
	}

	ctx, cancel := context.WithTimeout(context.Background(), clusterUp)
	defer cancel()
	if err := c.WaitHealthy(ctx); err != nil {
		// The cleanup shows the members' logs, as the test has failed.
		t.Fatalf("etcdtest: a new %d-member cluster: %v", n, err)
	}
	return c
}

// etcdBinary returns the path of etcd: Debian's, or the first on $PATH.
func etcdBinary() (string, error) {
	if p, err := exec.LookPath("/usr/bin/etcd"); err == nil {
		return p, nil
	}
	return exec.LookPath("etcd")
}

// freePorts returns n distinct ports that were free on 127.0.0.1: it holds
// all n listeners at once, so the kernel can not hand out one port twice.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("etcdtest: a free port: %v", err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// initialCluster returns the --initial-cluster flag's value: every member's
// name and peer URL.
func (c *Cluster) initialCluster() string {
	peers := make([]string, len(c.members))
	for i, m := range c.members {
		peers[i] = m.name + "=" + m.peerURL()
	}
	return strings.Join(peers, ",")
}

// Endpoints returns the client URLs of all members, running or not, in the
// members' order.
func (c *Cluster) Endpoints() []string {
	eps := make([]string, len(c.members))
	for i, m := range c.members {
		eps[i] = m.Endpoint()
	}
	return eps
}

// Member returns the member of index i, from 0; it fails the test if the
// cluster has no such member.
func (c *Cluster) Member(i int) *Member {
	c.t.Helper()
	if i < 0 || i >= len(c.members) {
		c.t.Fatalf("etcdtest: member %d of a %d-member cluster", i, len(c.members))
	}
	return c.members[i]
}

// Client returns a client of the cluster on endpoints, or on all members'
// when none is given. It logs nothing, and t's end closes it (before the
// cluster's end when t is the test that started the cluster, or its
// subtest). Client fails t if the client can not be made.
func (c *Cluster) Client(t testing.TB, endpoints ...string) *clientv3.Client {
	t.Helper()
	if len(endpoints) == 0 {
		endpoints = c.Endpoints()
	}
	return Client(t, endpoints...)
}

// Client returns a client on endpoints, which need not be a cluster's: one
// that nothing answers at serves a test of a cluster that does not answer.
// It is the client the uidgen command makes, and t's end closes it. Client
// fails t if the client can not be made.
func Client(t testing.TB, endpoints ...string) *clientv3.Client {
	t.Helper()
	cli, err := newClient(endpoints...)
	if err != nil {
		t.Fatalf("etcdtest: a client on %v: %v", endpoints, err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// newClient returns a client on endpoints made as the uidgen command makes
// one: quiet, probing an idle connection. It connects lazily, so a member
// that does not run fails the client's requests, not newClient.
func newClient(endpoints ...string) (*clientv3.Client, error) {
	cfg := etcdclient.Config(endpoints)
	cfg.DialTimeout = dialTimeout
	return clientv3.New(cfg)
}

// live returns the members that run and are not paused: those that can
// answer.
func (c *Cluster) live() []*Member {
	c.mu.Lock()
	defer c.mu.Unlock()
	var live []*Member
	for _, m := range c.members {
		if m.proc != nil && !m.paused && !m.proc.exited() {
			live = append(live, m)
		}
	}
	return live
}

// crashed returns an error wrapping ErrExited that names the first member
// whose process exited though the test did not end it, or nil.
func (c *Cluster) crashed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.members {
		if p := m.proc; p != nil && p.exited() {
			return fmt.Errorf("%w: member %s (pid %d): %v", ErrExited, m.name, p.cmd.Process.Pid, p.err)
		}
	}
	return nil
}

// Leader returns the index of the member that is the leader now. It asks
// each running, unpaused member for its status, each within a second, and
// picks the member whose status names itself as the leader; where two do,
// as while a leader that was paused learns it was deposed, it picks the one
// of the higher raft term. Leader returns an error wrapping ErrNoLeader
// when no member is leader, as during an election.
func (c *Cluster) Leader(ctx context.Context) (int, error) {
	live := c.live()
	if len(live) == 0 {
		return -1, fmt.Errorf("%w: no member runs unpaused", ErrNoLeader)
	}
	type answer struct {
		resp *clientv3.StatusResponse
		err  error
	}
	answers := make([]answer, len(live))
	var wg sync.WaitGroup
	for i, m := range live {
		wg.Go(func() {
			resp, err := m.status(ctx)
			answers[i] = answer{resp, err}
		})
	}
	wg.Wait()

	leader, term := -1, uint64(0)
	var heard []string
	for i, a := range answers {
		m := live[i]
		switch {
		case a.err != nil:
			heard = append(heard, fmt.Sprintf("%s: %v", m.name, a.err))
		case a.resp.Leader != a.resp.Header.MemberId:
			heard = append(heard, fmt.Sprintf("%s: leader %x", m.name, a.resp.Leader))
		case a.resp.RaftTerm > term:
			leader, term = m.index(), a.resp.RaftTerm
		}
	}
	if leader < 0 {
		return -1, fmt.Errorf("%w among %d running members (%s)", ErrNoLeader, len(live), strings.Join(heard, "; "))
	}
	return leader, nil
}

// WaitHealthy waits until the cluster has a leader and every running,
// unpaused member answers a linearizable read, each member through a client
// of its own endpoint: a member restarted after Kill counts only once it
// is back in the cluster. WaitHealthy returns ctx's error, with the last
// reason the cluster was not healthy, when ctx ends first, and an error
// wrapping ErrExited at once if a member exits by itself.
func (c *Cluster) WaitHealthy(ctx context.Context) error {
	for {
		if err := c.crashed(); err != nil {
			return err
		}
		err := c.healthy(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("etcdtest: the cluster is not healthy: %w; last: %w", ctx.Err(), err)
		case <-time.After(probeEvery):
		}
	}
}

// healthy returns nil if the cluster has a leader and every running,
// unpaused member answers a linearizable read, or why not.
func (c *Cluster) healthy(ctx context.Context) error {
	if _, err := c.Leader(ctx); err != nil {
		return err
	}
	for _, m := range c.live() {
		if err := m.read(ctx); err != nil {
			return err
		}
	}
	return nil
}

// remove ends every member's process and removes the cluster's directory,
// after logging the end of each member's log if the test failed.
func (c *Cluster) remove() {
	if c.t.Failed() {
		for _, m := range c.members {
			c.t.Logf("etcdtest: the end of member %s's log (%s):\n%s", m.name, m.logPath(), m.logTail())
		}
	}
	c.mu.Lock()
	var procs []*process
	for _, m := range c.members {
		if m.proc != nil {
			procs = append(procs, m.proc)
		}
		m.proc, m.paused = nil, false
	}
	c.mu.Unlock()

	// All members shut down together, so the cleanup waits one grace, not
	// one per member.
	for _, p := range procs {
		p.signal(syscall.SIGCONT) // a paused process can not act on SIGTERM
		p.signal(syscall.SIGTERM)
	}
	grace := time.NewTimer(cleanupGrace)
	defer grace.Stop()
	expired := false
	for _, p := range procs {
		if !expired {
			select {
			case <-p.exit:
				continue
			case <-grace.C:
				expired = true
			}
		}
		p.signal(syscall.SIGKILL)
	}
	for _, p := range procs {
		select {
		case <-p.exit:
		case <-time.After(exitTimeout):
			c.t.Errorf("etcdtest: etcd (pid %d) still runs %v after SIGKILL", p.cmd.Process.Pid, exitTimeout)
		}
	}
	if err := os.RemoveAll(c.dir); err != nil {
		c.t.Errorf("etcdtest: remove %s: %v", c.dir, err)
	}
}
