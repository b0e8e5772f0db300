package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/internal/redistest"
	"github.com/seed4d941b13/uidgen/redisworker"
)

// The lease fleet tests run `uidgen gen -redis` as separate processes that
// start, finish, crash and pause around one fleet on a throwaway Redis:
// package fleettest's scenarios, which the SQL table and etcd pass too.

// redisFleet is a fleet of its own, under a prefix no other test uses, on
// a deployment: a fleettest.Store.
type redisFleet struct {
	args   []string // the flags that name the deployment
	prefix string
	cfg    redisworker.Config // for One
}

// redisFleets returns a fleettest.NewStore of fleets on a server of t's
// own, which they share.
func redisFleets(t *testing.T) fleettest.NewStore {
	s := redistest.Start(t)
	return fleetsOn(s.Client(t), "-redis", s.URL())
}

// fleetsOn returns a fleettest.NewStore of fleets on the deployment that c
// reaches and args name to the command.
func fleetsOn(c redis.UniversalClient, args ...string) fleettest.NewStore {
	return func(t *testing.T) fleettest.Store {
		prefix := "{" + t.Name() + "}:"
		return &redisFleet{args: args, prefix: prefix, cfg: redisworker.Config{Client: c, Prefix: prefix}}
	}
}

func (f *redisFleet) Args() []string {
	return append(slices.Clip(f.args), "-redis-prefix", f.prefix)
}

func (f *redisFleet) One(ctx context.Context) (held bool, reserved int64, err error) {
	rows, err := redisworker.List(ctx, f.cfg)
	if err != nil {
		return false, 0, err
	}
	if len(rows) != 1 || rows[0].ID != 1 {
		return false, 0, fmt.Errorf("the fleet under %s holds %+v, want worker ID 1 alone", f.prefix, rows)
	}
	return rows[0].Held, rows[0].Reserved, nil
}

// TestRedisLeaseReuse: fleettest.Reuse on a Redis fleet.
func TestRedisLeaseReuse(t *testing.T) { fleettest.Reuse(t, redisFleets(t)) }

// TestRedisLeaseCrash: fleettest.Crash on a Redis fleet.
func TestRedisLeaseCrash(t *testing.T) { fleettest.Crash(t, redisFleets(t)) }

// TestRedisLeasePause: fleettest.Pause on a Redis fleet.
func TestRedisLeasePause(t *testing.T) { fleettest.Pause(t, redisFleets(t)) }

// TestRedisCluster: `uidgen gen -redis-cluster` processes lease from a
// Redis Cluster of three primaries as from one server (fleettest.Reuse),
// and `uidgen workers -redis-cluster` lists the fleet's seven IDs, free
// once every process has exited.
func TestRedisCluster(t *testing.T) {
	c := redistest.StartCluster(t, 3, 0)
	var addrs []string
	for _, s := range c.Primaries {
		addrs = append(addrs, s.Addr())
	}
	nodes := strings.Join(addrs, ",")
	fleettest.Reuse(t, fleetsOn(c.Client(t), "-redis-cluster", nodes))

	var out, errOut bytes.Buffer
	prefix := "{" + t.Name() + "}:"
	if code := Main([]string{"workers", "-redis-cluster", nodes, "-redis-prefix", prefix}, &out, &errOut, newStores(&errOut)); code != 0 {
		t.Fatalf("workers -redis-cluster: exit %d: %s", code, &errOut)
	}
	if !strings.Contains(out.String(), "\n1   free ") || !strings.HasSuffix(out.String(), "7 worker IDs under \""+prefix+"\": 0 held, 7 free\n") {
		t.Errorf("workers -redis-cluster after the fleet's runs:\n%s", &out)
	}
}

// TestRedisServe: `uidgen serve -redis` hands out IDs of a worker ID it
// leased, which `uidgen workers -redis` lists as held while it runs and
// free once it exited.
func TestRedisServe(t *testing.T) {
	s := redistest.Start(t)
	srv := startServer(t, "-redis", s.URL(), "-redis-prefix", "{serve}:")
	id, err := strconv.ParseInt(strings.TrimSpace(srv.do(t, "GET", "/id").body), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if worker := uidgen.DefaultLayout().Parse(id).WorkerID; worker != 1 {
		t.Errorf("ID %d has worker ID %d, want 1, the first leased", id, worker)
	}
	workers := func() string {
		var out, errOut bytes.Buffer
		if code := Main([]string{"workers", "-redis", s.URL(), "-redis-prefix", "{serve}:"}, &out, &errOut, newStores(&errOut)); code != 0 {
			t.Fatalf("workers: exit %d: %s", code, &errOut)
		}
		return out.String()
	}
	if out := workers(); !strings.Contains(out, "\n1   held ") || !strings.HasSuffix(out, "1 worker IDs under \"{serve}:\": 1 held, 0 free\n") {
		t.Errorf("workers while serving:\n%s", out)
	}
	srv.stop(t, syscall.SIGTERM)
	if out := workers(); !strings.Contains(out, "\n1   free ") {
		t.Errorf("workers after serve exited:\n%s", out)
	}
}

// TestRedisBadCalls: the Redis flags that cannot go together, or with the
// other stores', exit 2 naming both flags, before anything is leased.
func TestRedisBadCalls(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "-redis", "redis://127.0.0.1:1/0", "-dsn", "root@tcp(127.0.0.1:1)/test"}, "-dsn and -redis both given"},
		{[]string{"gen", "-redis", "redis://127.0.0.1:1/0", "-etcd", "http://127.0.0.1:1"}, "-etcd and -redis both given"},
		{[]string{"serve", "-redis-sentinel", "127.0.0.1:1", "-etcd", "http://127.0.0.1:1"}, "-etcd and -redis-sentinel both given"},
		{[]string{"gen", "-redis", "redis://127.0.0.1:1/0", "-redis-sentinel", "127.0.0.1:1", "-redis-master", "m"}, "-redis and -redis-sentinel both given"},
		{[]string{"gen", "-redis-sentinel", "127.0.0.1:1"}, "-redis-master \"\""},
		{[]string{"gen", "-redis-master", "m"}, "-redis-master \"m\" needs -redis-sentinel"},
		{[]string{"gen", "-redis", "mysql://nowhere"}, "-redis \"mysql://nowhere\""},
		{[]string{"gen", "-redis", "redis://127.0.0.1:1/0", "-redis-prefix", "{a}{b}"}, `invalid config: Prefix "{a}{b}"`},
		{[]string{"workers", "-redis", "redis://127.0.0.1:1/0", "-etcd", "http://127.0.0.1:1"}, "-etcd and -redis both given"},
		{[]string{"bench", "-redis", "redis://127.0.0.1:1/0", "-worker", "3"}, "-redis" + benchRefusal},
		{[]string{"gen", "-redis-prefix", "{a}:", "-worker", "3"}, "-redis-prefix given, but no store it configures: it goes with -etcd or -redis or -redis-cluster or -redis-sentinel"},
		{[]string{"gen", "-redis", "redis://127.0.0.1:1/0", "-redis-cluster", "127.0.0.1:1"}, "-redis and -redis-cluster both given"},
		{[]string{"serve", "-redis-cluster", "127.0.0.1:1", "-etcd", "http://127.0.0.1:1"}, "-etcd and -redis-cluster both given"},
		{[]string{"gen", "-redis-cluster", " , "}, "-redis-cluster \" , \": want at least one node's HOST:PORT"},
		{[]string{"gen", "-redis-cluster", "127.0.0.1:1", "-redis-master", "m"}, "-redis-master \"m\" needs -redis-sentinel"},
		{[]string{"workers", "-redis-replicas", "1", "-dsn", "root@tcp(127.0.0.1:1)/test"}, "-redis-replicas given, but no store"},
	} {
		var out, errOut bytes.Buffer
		code := Main(tt.args, &out, &errOut, newStores(io.Discard))
		if code != 2 || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, code, &errOut, tt.want)
		}
	}
}

// TestRedisWarnsOfDurability: a server that syncs its append-only file
// once a second gets a warning on stderr when gen leases from it, and one
// that syncs every write gets none.
func TestRedisWarnsOfDurability(t *testing.T) {
	for _, tt := range []struct {
		config string
		warn   bool
	}{{"appendfsync always", false}, {"appendfsync everysec", true}} {
		s := redistest.Start(t, tt.config)
		var out, errOut bytes.Buffer
		code := Main([]string{"gen", "-n", "3", "-redis", s.URL()}, &out, &errOut, newStores(&errOut))
		warned := strings.Contains(errOut.String(), "appendfsync is everysec")
		if code != 0 || warned != tt.warn || len(strings.Fields(out.String())) != 3 {
			t.Errorf("%s: exit %d, warned %v (want %v), stdout %q, stderr %q", tt.config, code, warned, tt.warn, &out, &errOut)
		}
	}
}

// TestRedisFromEnv: $UIDGEN_REDIS chooses Redis only where no flag chooses
// where the worker ID comes from; a flag beats it, and with $UIDGEN_DSN set
// too and no flag, the command names both and exits 2.
func TestRedisFromEnv(t *testing.T) {
	s := redistest.Start(t)
	t.Setenv(redisEnv, s.URL())
	t.Setenv(dsnEnv, "")
	gen := func(args ...string) (int, []string, string) {
		var out, errOut bytes.Buffer
		code := Main(append([]string{"gen", "-n", "2"}, args...), &out, &errOut, newStores(&errOut))
		return code, strings.Fields(out.String()), errOut.String()
	}
	workerOf := func(ids []string) int64 {
		id, err := strconv.ParseInt(ids[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return uidgen.DefaultLayout().Parse(id).WorkerID
	}
	if code, ids, stderr := gen("-redis-prefix", "{env}:"); code != 0 || len(ids) != 2 || workerOf(ids) != 1 {
		t.Errorf("gen with $%s: exit %d, %q, %s; want two IDs of worker ID 1, leased", redisEnv, code, ids, stderr)
	}
	if code, ids, stderr := gen("-worker", "3"); code != 0 || len(ids) != 2 || workerOf(ids) != 3 {
		t.Errorf("gen -worker 3 with $%s: exit %d, %q, %s; want two IDs of worker ID 3", redisEnv, code, ids, stderr)
	}
	t.Setenv(dsnEnv, "root@tcp(127.0.0.1:1)/test")
	if code, _, stderr := gen(); code != 2 || !strings.Contains(stderr, "$UIDGEN_DSN and $UIDGEN_REDIS are both set") {
		t.Errorf("gen with $%s and $%s: exit %d, %s; want 2 naming both", dsnEnv, redisEnv, code, stderr)
	}
}
