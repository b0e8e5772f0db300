package dbtest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
	"github.com/seed4d941b13/uidgen/segment"
	"github.com/seed4d941b13/uidgen/worker"
)

// TestFailover runs a fleet through a real PostgreSQL failover: a primary
// with a synchronous standby, reached through one multi-host URL that asks
// for the server that takes writes. Four leased cached generators and two
// segment generators take at a steady pace; the primary is killed, and the
// standby promoted two minutes later. No take fails, every ID and every
// number is unique, and a generator of each kind started after the
// promotion leases, claims and runs. It waits out the real two minutes, so
// it runs only at full size.
func TestFailover(t *testing.T) {
	if sizetest.Small() {
		t.Skip("waits out a two-minute failover: full size only (not under -race or -short)")
	}
	t.Parallel()
	const (
		pace = 10 * time.Millisecond // 100 IDs a second each
		down = 2 * time.Minute       // from the primary's death to the promotion
	)
	primary := dbtest.Start(t, "postgres")
	standby := dbtest.StartStandby(t, primary)
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/test?sslmode=disable&connect_timeout=2&target_session_attrs=read-write",
		primary.Port(), standby.Port())
	db := dbtest.Server{Kind: "postgres", DSN: url}.Open(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := worker.EnsureSchema(ctx, worker.Config{DB: db}); err != nil {
		t.Fatal(err)
	}
	if err := segment.EnsureSchema(ctx, segment.Config{DB: db}); err != nil {
		t.Fatal(err)
	}

	// Each member takes at pace until stop closes, and keeps what it took
	// and the first error.
	type member struct {
		name string
		next func() (int64, error)
		ids  []int64
		err  error
	}
	var (
		members []*member
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	join := func(name string, next func() (int64, error)) {
		m := &member{name: name, next: next}
		members = append(members, m)
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(pace):
				}
				id, err := m.next()
				if err != nil {
					m.err = fmt.Errorf("%s, %v into the run: %w", m.name, time.Now().Format(time.TimeOnly), err)
					return
				}
				m.ids = append(m.ids, id)
			}
		})
	}
	leased := func(ctx context.Context, name string) {
		t.Helper()
		l, err := worker.NewLeased(worker.Config{DB: db})
		if err != nil {
			t.Fatal(err)
		}
		g, err := cached.New(ctx, cached.Config{Leaser: l})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(func() { g.Close() })
		join(name, g.NextID)
	}
	var counters []*segment.Generator
	counter := func(ctx context.Context, name string) {
		t.Helper()
		g, err := segment.New(ctx, segment.Config{DB: db, Tag: "failover"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(func() { g.Close() })
		counters = append(counters, g)
		join(name, g.NextID)
	}
	for i := range 4 {
		leased(ctx, fmt.Sprint("leased ", i+1))
	}
	for i := range 2 {
		counter(ctx, fmt.Sprint("segment ", i+1))
	}
	// The outage starts once each segment generator's second claim, sized
	// by its rate to last minutes, has landed.
	for _, g := range counters {
		for g.Stats().Claims < 2 {
			if err := ctx.Err(); err != nil {
				t.Fatalf("a segment generator's second claim has not landed: %v", err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	primary.Kill()
	killed := time.Now()
	time.Sleep(down)
	standby.Promote()
	promoted := time.Now()
	t.Logf("primary killed; standby promoted %v later", promoted.Sub(killed).Round(time.Second))
	after, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	leased(after, "leased after the promotion")
	counter(after, "segment after the promotion")
	t.Logf("a leased and a segment generator started %v after the promotion", time.Since(promoted).Round(time.Millisecond))
	time.Sleep(10 * time.Second)
	close(stop)
	wg.Wait()

	ids, numbers := map[int64]string{}, map[int64]string{}
	for _, m := range members {
		if m.err != nil {
			t.Errorf("a take failed: %v", m.err)
		}
		if len(m.ids) == 0 {
			t.Errorf("%s took nothing", m.name)
		}
		seen := ids
		if m.name[:7] == "segment" {
			seen = numbers
		}
		for _, id := range m.ids {
			if other, ok := seen[id]; ok {
				t.Fatalf("%d handed out by %s and by %s", id, other, m.name)
			}
			seen[id] = m.name
		}
	}
	t.Logf("%d IDs and %d numbers through the failover, all unique", len(ids), len(numbers))
}
