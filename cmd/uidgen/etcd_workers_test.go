package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/etcdworker"
	"github.com/seed4d941b13/uidgen/internal/etcdtest"
)

// TestWorkers: `uidgen workers -etcd` shows a held and a free worker ID of
// the fleet under -etcd-prefix, and nothing of another fleet's.
func TestWorkers(t *testing.T) {
	c := etcdtest.Start(t, 1)
	client := c.Client(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	l, err := etcdworker.NewLeased(etcdworker.Config{Client: client, Prefix: "/orders/"})
	if err != nil {
		t.Fatal(err)
	}
	held, err := l.LeaseWorkerID(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release(context.Background(), held.First())
	free, err := l.LeaseWorkerID(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := free.Release(ctx, free.First()); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Put(ctx, "/payments/reserved/9", "1"); err != nil { // another fleet
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	code := Main([]string{"workers", "-etcd", strings.Join(c.Endpoints(), ","), "-etcd-prefix", "/orders/"},
		&stdout, &stderr, newStores(&stderr))
	out := stdout.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "ID  STATE  HOST") ||
		!strings.HasPrefix(lines[1], "1   held ") || !strings.HasPrefix(lines[2], "2   free ") ||
		lines[3] != `2 worker IDs under "/orders/": 1 held, 1 free` {
		t.Errorf("workers: exit %d, stderr %q, printed\n%s", code, &stderr, out)
	}

	code = Main([]string{"workers", "-etcd", " , "}, &stdout, &stderr, newStores(&stderr))
	if code != 2 || !strings.Contains(stderr.String(), "names no endpoint") {
		t.Errorf("workers -etcd ' , ': exit %d, stderr %q; want 2, naming no endpoint", code, &stderr)
	}
}
