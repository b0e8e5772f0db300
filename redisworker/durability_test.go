package redisworker

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestDurabilityWarnings: each deployment docs/redis.md says cannot keep
// the leases' promise is warned of, and one that can, or that does not say,
// is not.
func TestDurabilityWarnings(t *testing.T) {
	aof := map[string]string{"aof_enabled": "1"}
	replicas := func(n string) map[string]string { return map[string]string{"role": "master", "connected_slaves": n} }
	for _, tt := range []struct {
		name        string
		persistence map[string]string
		replication map[string]string
		appendfsync string
		replicas    int
		want        []string // a fragment of each warning, in order
	}{
		{"no append-only file", map[string]string{"aof_enabled": "0"}, replicas("0"), "always", 0,
			[]string{"keeps no append-only file"}},
		{"everysec", aof, replicas("0"), "everysec", 0, []string{"appendfsync is everysec"}},
		{"no fsync", aof, replicas("0"), "no", 0, []string{"appendfsync is no"}},
		{"fewer replicas than asked", aof, replicas("1"), "always", 2, []string{"Config.Replicas is 2 but 1 replicas are connected"}},
		{"replicas not waited for", aof, replicas("2"), "always", 0, []string{"2 replicas are connected but Config.Replicas is 0"}},
		{"everysec and no replica", aof, replicas("0"), "everysec", 1,
			[]string{"appendfsync is everysec", "Config.Replicas is 1 but 0 replicas are connected"}},
		{"always, replicas as asked", aof, replicas("2"), "always", 2, nil},
		{"always, no replica", aof, replicas("0"), "always", 0, nil},
		{"a server that says nothing", map[string]string{}, map[string]string{}, "", 1, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := durabilityWarnings(tt.persistence, tt.replication, tt.appendfsync, tt.replicas)
			if len(got) != len(tt.want) {
				t.Fatalf("warnings %q, want %d naming %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %d: %q, want it to name %q", i, got[i], w)
				}
			}
		})
	}
}

// TestDurabilityLogged: a Leased with a logger warns, at its first lease
// and only then, of a server that syncs its append-only file every second;
// a Leased without one logs nothing, not even through slog's default.
func TestDurabilityLogged(t *testing.T) {
	f := newFleet(t, "appendfsync everysec")

	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	l := f.leased(t, Config{Logger: logger})
	mustLease(t, l, 7)
	mustLease(t, l, 7)
	got := buf.String()
	if n := strings.Count(got, "appendfsync is everysec"); n != 1 || !strings.Contains(got, "level=WARN") {
		t.Errorf("log %q warns of everysec %d times, want once, at level WARN", got, n)
	}
	if n := strings.Count(got, "leased worker ID"); n != 2 {
		t.Errorf("log %q tells of %d leases, want 2", got, n)
	}

	var def bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&def, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer slog.SetDefault(old)
	quiet := f.leased(t, Config{})
	s := mustLease(t, quiet, 7)
	if err := s.Release(testContext(t), s.First()); err != nil {
		t.Fatal(err)
	}
	if def.Len() != 0 {
		t.Errorf("a Leased without a logger logged %q", def.String())
	}
}
