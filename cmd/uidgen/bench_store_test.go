package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/etcdtest"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/internal/redistest"
)

// benchRefusal is what bench says of a flag of a worker ID's store.
const benchRefusal = ": bench takes a static worker ID (-worker, 0 by default) and keeps no store"

// TestBenchKeepsNoStore: bench refuses every flag of a worker ID's store,
// exit 2, before it touches the store: the SQLite file is not made, no
// worker table appears on MySQL or PostgreSQL, no key on etcd or Redis;
// the stores' variables ($UIDGEN_DB, $UIDGEN_DSN, $UIDGEN_ETCD,
// $UIDGEN_REDIS), which are set for gen and serve, it ignores. So a gen of
// -worker 5 on the file bench was pointed at starts at the clock, not
// above the time a bench borrowed (4,753 s ahead, when bench leased).
func TestBenchKeepsNoStore(t *testing.T) {
	etcd := etcdtest.Start(t, 1)
	redisServer := redistest.Start(t)
	file := filepath.Join(t.TempDir(), "uidgen.db")
	mysql, postgres := dbtest.Shared(t, "mysql"), dbtest.Shared(t, "postgres")
	table := dbtest.UniqueName("bench_no_store_")
	endpoints := strings.Join(etcd.Endpoints(), ",")

	// A value for every flag of the store: the chosen ones name the
	// test's servers, the others need none.
	values := map[string]string{
		"db": file, "dsn": mysql.DSN, "table": table, "lease": "", "lease-ttl": "30s", "lease-horizon": "1m", "worker-ids": "5-5",
		"etcd": endpoints, "etcd-prefix": "/bench/",
		"redis": redisServer.URL(), "redis-prefix": "{bench}:", "redis-replicas": "0",
		"redis-sentinel": "127.0.0.1:1", "redis-master": "m", "redis-cluster": "127.0.0.1:1",
	}
	var w workerFlags
	w.register(flag.NewFlagSet("bench", flag.ContinueOnError), newStores(io.Discard))
	for _, name := range w.storeFlagNames() {
		value, ok := values[name]
		if !ok {
			t.Fatalf("-%s is a store flag this test gives no value: add it", name)
		}
		args := []string{"bench", "-worker", "5", "-d", "50ms", "-" + name}
		if value != "" {
			args = append(args, value)
		}
		code, out, stderr := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(stderr, "-"+name+benchRefusal) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, out, stderr, "-"+name+benchRefusal)
		}
	}
	code, out, stderr := runCLI(t, "bench", "-worker", "5", "-d", "50ms", "-dsn", postgres.DSN, "-table", table)
	if code != 2 || out != "" || !strings.Contains(stderr, "-dsn"+benchRefusal) {
		t.Errorf("bench -dsn POSTGRES: exit %d, stdout %q, stderr %q; want 2 and the refusal", code, out, stderr)
	}

	// The variables that choose a store for gen and serve: bench runs,
	// with its static ID.
	for _, env := range [][2]string{{dbEnv, file}, {dsnEnv, mysql.DSN}, {endpointsEnv, endpoints}, {redisEnv, redisServer.URL()}} {
		t.Run("$"+env[0], func(t *testing.T) {
			t.Setenv(env[0], env[1])
			code, out, stderr := runCLI(t, "bench", "-worker", "5", "-d", "50ms", "-goroutines", "1")
			if code != 0 || !strings.Contains(out, "worker ID 5 is static and remembered nowhere") {
				t.Errorf("bench with $%s set: exit %d, stderr %q, printed\n%s", env[0], code, stderr, out)
			}
		})
	}

	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("bench made or touched the SQLite file %s: %v", file, err)
	}
	for _, s := range []dbtest.Server{mysql, postgres} {
		var n int
		q := fmt.Sprintf("SELECT COUNT(*) FROM information_schema.tables WHERE table_name = '%s'", table)
		if err := s.Open(t).QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d tables named %s (%v): bench made the worker table", s.Kind, n, table, err)
		}
	}
	if resp, err := etcd.Client(t).Get(t.Context(), "\x00", clientv3.WithFromKey(), clientv3.WithCountOnly()); err != nil || resp.Count != 0 {
		t.Errorf("etcd holds keys (%v, %v), want none", resp, err)
	}
	if n, err := redisServer.Client(t).DBSize(t.Context()).Result(); err != nil || n != 0 {
		t.Errorf("Redis holds %d keys (%v), want none", n, err)
	}

	p, err := fleettest.Start(t.Context(), "gen", "-db", file, "-worker", "5", "-n", "1")
	if err != nil {
		t.Fatal(err)
	}
	defer p.End()
	if err := p.Finish(); err != nil || len(p.IDs) != 1 {
		t.Fatalf("gen -db FILE -worker 5 -n 1: %v, IDs %v: %s", err, p.IDs, p.Stderr())
	}
	// The ID's tick starts at most 3 s after the clock read once gen has
	// printed it: a bench that leased would have left the ID's time far
	// above.
	if ahead := uidgen.DefaultLayout().Parse(p.IDs[0]).Time.Sub(time.Now()); ahead > 3*time.Second {
		t.Errorf("gen's first ID is %v ahead of the clock, want at most 3s", ahead)
	}
}
