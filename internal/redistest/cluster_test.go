package redistest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/redistest"
)

// TestCluster proves the cluster does what the lease tests rely on: a
// cluster client reaches keys of every slot, Owner names the server that
// holds a key (the others redirect), keys of one hash tag share a server,
// and a server killed and restarted from its directory rejoins with its
// slots and its keys.
func TestCluster(t *testing.T) {
	c := redistest.StartCluster(t, 3, 0)
	cl := c.Client(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	owners := map[*redistest.Server]bool{}
	for i := range 30 {
		key := fmt.Sprintf("k%d", i)
		if err := cl.Set(ctx, key, i, 0).Err(); err != nil {
			t.Fatalf("SET %s through the cluster client: %v", key, err)
		}
		owner := c.Owner(t, key)
		owners[owner] = true
		for _, s := range c.Primaries {
			direct := s.Client(t)
			v, err := direct.Get(ctx, key).Result()
			if s == owner && (err != nil || v != fmt.Sprint(i)) {
				t.Fatalf("GET %s from its owner %s: %q, %v", key, s.Addr(), v, err)
			}
			if s != owner && (err == nil || !strings.HasPrefix(err.Error(), "MOVED")) {
				t.Fatalf("GET %s from %s, not its owner: %q, %v; want MOVED", key, s.Addr(), v, err)
			}
		}
	}
	if len(owners) != 3 {
		t.Errorf("30 keys on %d of the 3 servers, want every server to own some", len(owners))
	}
	if a, b := c.Owner(t, "{fleet}:a"), c.Owner(t, "{fleet}:b:1"); a != b {
		t.Errorf("keys of one hash tag on %s and %s", a.Addr(), b.Addr())
	}

	s := c.Owner(t, "k0")
	s.Kill()
	s.Restart()
	for {
		v, err := cl.Get(ctx, "k0").Result()
		if err == nil && v == "0" {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("GET k0 after its owner's restart: %q, %v; want 0, from the append-only file", v, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
