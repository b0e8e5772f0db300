package redistest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sentinel timing, in milliseconds. A primary that does not answer for
// downAfterMillis is down to a Sentinel; a failover not done within
// failoverTimeoutMillis is given up and tried again twice as late. Short,
// so that a test's failover takes seconds, and long enough that a 2-core
// machine under -race, whose processes stall for hundreds of milliseconds,
// makes no failover the test did not cause.
const (
	downAfterMillis       = 1000
	failoverTimeoutMillis = 10_000
)

// pollEvery is how often the waits below ask the Sentinels again.
const pollEvery = 100 * time.Millisecond

// StartReplica starts a server, as Start does, that replicates primary
// (replicaof), with its own append-only file synced at every write, so that
// once promoted it keeps what it acknowledged as a primary does. It does
// not wait for the first sync: WaitReplicas on the primary does.
func StartReplica(t testing.TB, primary *Server, config ...string) *Server {
	t.Helper()
	return Start(t, append([]string{"replicaof 127.0.0.1 " + strconv.Itoa(primary.Port())}, config...)...)
}

// RestartReplicaOf starts the server again after Kill, as Restart does,
// as a replica of primary (replicaof in its config file): an old primary
// brought back as the Sentinels reconfigure it. Brought back as a primary
// instead, it is one of two until the Sentinels convert it; on a loaded
// machine a Sentinel that saw it answer as a primary first has turned the
// promoted replica into its replica, and they flipped back and forth.
func (s *Server) RestartReplicaOf(primary *Server) {
	s.t.Helper()
	f, err := os.OpenFile(s.conf, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = fmt.Fprintf(f, "replicaof 127.0.0.1 %d\n", primary.Port())
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		s.t.Fatalf("make redis-server on port %d a replica of %s: %v", s.port, primary.Addr(), err)
	}
	s.Restart()
}

// WaitReplicas waits, within ctx, until the server is a primary with at
// least n replicas online: a write it then acknowledges to WAIT n has
// reached them.
func (s *Server) WaitReplicas(ctx context.Context, n int) error {
	c := s.NewClient()
	defer c.Close()
	last := "no answer"
	for {
		if text, err := c.Info(ctx, "replication").Result(); err != nil {
			last = err.Error()
		} else if online := strings.Count(text, "state=online"); strings.Contains(text, "role:master") && online >= n {
			return nil
		} else {
			last = strings.Join(strings.Fields(text), " ")
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redistest: %s is no primary with %d replicas online: %w; INFO replication: %s", s.Addr(), n, ctx.Err(), last)
		case <-time.After(pollEvery):
		}
	}
}

// Sentinels are redis-server processes in Sentinel mode, on free ports, in
// temporary directories, watching one primary under one name with a quorum
// of two: two Sentinels must find the primary down before a failover, and
// a majority of them must elect the one that runs it. Each is ended by its
// process ID when the test ends.
type Sentinels struct {
	t     testing.TB
	name  string
	procs []*sentinel
}

// sentinel is one Sentinel process. Only Sentinels' constructor and the
// test's cleanup touch it.
type sentinel struct {
	dir  string
	port int
	cmd  *exec.Cmd
	exit chan struct{} // closed once cmd has exited
}

// StartSentinels starts n Sentinels (at least two, for the quorum) that
// watch primary under name, and waits until each answers; WaitPrimary
// waits until they are ready to fail it over. It skips or fails the test
// where redis-server is missing, as Start does, and under -short, where
// the fast loop starts no Sentinels (docs/testing.md).
func StartSentinels(t testing.TB, primary *Server, name string, n int) *Sentinels {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs %d Redis Sentinels of its own, to fail a primary over; runs in the full suite (without -short)", n)
	}
	if n < 2 {
		t.Fatalf("redistest: %d Sentinels, want 2 or more for a quorum of 2", n)
	}
	bin := lookPath(t)
	s := &Sentinels{t: t, name: name}
	for range n {
		p := &sentinel{dir: t.TempDir(), port: freePort(t)}
		// Sentinel rewrites its config file as it learns the deployment,
		// so the file is its own, in its directory.
		conf := filepath.Join(p.dir, "sentinel.conf")
		lines := []string{
			"port " + strconv.Itoa(p.port), "bind 127.0.0.1", "dir " + p.dir,
			"logfile " + filepath.Join(p.dir, "sentinel.log"), "daemonize no", "protected-mode no",
			fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d 2", name, primary.Port()),
			fmt.Sprintf("sentinel down-after-milliseconds %s %d", name, downAfterMillis),
			fmt.Sprintf("sentinel failover-timeout %s %d", name, failoverTimeoutMillis),
			fmt.Sprintf("sentinel parallel-syncs %s 1", name),
		}
		if err := os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p.cmd = exec.Command(bin, conf, "--sentinel")
		if err := p.cmd.Start(); err != nil {
			t.Fatalf("start redis-server --sentinel: %v", err)
		}
		p.exit = make(chan struct{})
		go func() { p.cmd.Wait(); close(p.exit) }()
		t.Cleanup(func() {
			p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.exit
		})
		s.procs = append(s.procs, p)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	for _, p := range s.procs {
		c := p.client()
		for c.Ping(ctx).Err() != nil {
			select {
			case <-p.exit:
				t.Fatalf("Sentinel on port %d exited at start:\n%s", p.port, p.logTail())
			case <-ctx.Done():
				t.Fatalf("Sentinel on port %d did not answer within %v:\n%s", p.port, startTimeout, p.logTail())
			case <-time.After(50 * time.Millisecond):
			}
		}
		c.Close()
	}
	return s
}

// lookPath returns redis-server's path, or skips or fails t as Start does.
func lookPath(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis-server is not installed: .ci/run installs Debian's redis-server: %v", err)
		}
		t.Skipf("needs redis-server (apt-get install redis-server): %v", err)
	}
	return bin
}

// Name returns the name the Sentinels know the primary by.
func (s *Sentinels) Name() string { return s.name }

// Addrs returns the Sentinels' addresses, 127.0.0.1:PORT.
func (s *Sentinels) Addrs() []string {
	addrs := make([]string, len(s.procs))
	for i, p := range s.procs {
		addrs[i] = p.addr()
	}
	return addrs
}

// NewClient returns a failover client of the primary the Sentinels name,
// whose contexts bound every request, for the caller to close.
func (s *Sentinels) NewClient() *redis.Client {
	return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: s.name, SentinelAddrs: s.Addrs(),
		ContextTimeoutEnabled: true, DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
}

// WaitPrimary waits, within ctx, until the Sentinels can fail the primary
// at addr over: each names it as the primary, knows the other Sentinels,
// and knows at least replicas replicas whose link to it is up; and
// together they reach the quorum and the majority a failover needs.
// Sentinels learn of each other and of replicas every few seconds.
func (s *Sentinels) WaitPrimary(ctx context.Context, addr string, replicas int) error {
	return s.poll(ctx, func(ctx context.Context, clients []*redis.SentinelClient) (int, error) {
		return each(clients, func(c *redis.SentinelClient) error {
			if got, err := primaryOf(ctx, c, s.name); err != nil {
				return err
			} else if got != addr {
				return fmt.Errorf("names %s as the primary, want %s", got, addr)
			}
			others, err := c.Sentinels(ctx, s.name).Result()
			if err != nil {
				return err
			}
			if len(others) < len(s.procs)-1 {
				return fmt.Errorf("knows %d other Sentinels, want %d", len(others), len(s.procs)-1)
			}
			reps, err := c.Replicas(ctx, s.name).Result()
			if err != nil {
				return err
			}
			up := 0
			for _, r := range reps {
				if r["master-link-status"] == "ok" && !strings.Contains(r["flags"], "down") &&
					!strings.Contains(r["flags"], "disconnected") {
					up++
				}
			}
			if up < replicas {
				return fmt.Errorf("knows %d replicas with their link up, want %d", up, replicas)
			}
			return c.CkQuorum(ctx, s.name).Err()
		})
	})
}

// WaitPromotion waits, within ctx, until every Sentinel names the same
// primary, other than old, and that server answers as a primary. It
// returns its address. Call it after killing the primary at old: the
// Sentinels find it down after downAfterMillis, elect one of themselves,
// and that one promotes a replica.
func (s *Sentinels) WaitPromotion(ctx context.Context, old string) (string, error) {
	var addr string
	err := s.poll(ctx, func(ctx context.Context, clients []*redis.SentinelClient) (int, error) {
		addr = ""
		if i, err := each(clients, func(c *redis.SentinelClient) error {
			got, err := primaryOf(ctx, c, s.name)
			switch {
			case err != nil:
				return err
			case got == old:
				return fmt.Errorf("still names %s as the primary", old)
			case addr != "" && got != addr:
				return fmt.Errorf("names %s as the primary, another Sentinel %s", got, addr)
			}
			addr = got
			return nil
		}); err != nil {
			return i, err
		}
		p := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
		defer p.Close()
		role, err := p.Do(ctx, "ROLE").Slice()
		if err != nil {
			return -1, fmt.Errorf("the new primary %s: %w", addr, err)
		}
		if len(role) == 0 || role[0] != "master" {
			return -1, fmt.Errorf("the new primary %s answers ROLE %v", addr, role)
		}
		return -1, nil
	})
	if err != nil {
		return "", err
	}
	return addr, nil
}

// primaryOf returns the address the Sentinel of c names as the primary.
func primaryOf(ctx context.Context, c *redis.SentinelClient, name string) (string, error) {
	hp, err := c.GetMasterAddrByName(ctx, name).Result()
	if err != nil {
		return "", err
	}
	if len(hp) != 2 {
		return "", fmt.Errorf("names the primary %q", hp)
	}
	return hp[0] + ":" + hp[1], nil
}

// each runs check on every client in turn, and returns the index and the
// error of the first that fails, or -1 and nil.
func each(clients []*redis.SentinelClient, check func(*redis.SentinelClient) error) (int, error) {
	for i, c := range clients {
		if err := check(c); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// poll runs round, with a client of each Sentinel, until it passes or ctx
// ends. round returns nil, or its failure and the index of the Sentinel at
// fault (-1 for none), whose log the error that poll returns ends with.
func (s *Sentinels) poll(ctx context.Context, round func(context.Context, []*redis.SentinelClient) (int, error)) error {
	clients := make([]*redis.SentinelClient, len(s.procs))
	for i, p := range s.procs {
		clients[i] = p.client()
		defer clients[i].Close()
	}
	last, lastAt := errors.New("no round ran"), -1 // the last failure before ctx ended, which says more than its end
	for {
		i, err := round(ctx, clients)
		if err == nil {
			return nil
		}
		if ctx.Err() == nil {
			last, lastAt = err, i
		}
		select {
		case <-ctx.Done():
			if lastAt >= 0 {
				p := s.procs[lastAt]
				last = fmt.Errorf("Sentinel %s: %w; its log ends:\n%s", p.addr(), last, p.logTail())
			}
			return fmt.Errorf("redistest: Sentinels of %s: %w: %w", s.name, ctx.Err(), last)
		case <-time.After(pollEvery):
		}
	}
}

func (p *sentinel) addr() string { return "127.0.0.1:" + strconv.Itoa(p.port) }

func (p *sentinel) client() *redis.SentinelClient {
	return redis.NewSentinelClient(&redis.Options{Addr: p.addr(), ContextTimeoutEnabled: true,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
}

// logTail returns the last lines of the Sentinel's log.
func (p *sentinel) logTail() string {
	data, err := os.ReadFile(filepath.Join(p.dir, "sentinel.log"))
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(len(lines)-20, 0):], "\n")
}
