package leasetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/faulttest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// slowStore delays every chunk either way by a fifth of the TTL: a round
// trip takes longer than the third of the TTL a renewal may take, so
// every renewal through the proxy times out, though the store may apply
// it.
func slowStore(p *faulttest.Proxy, ttl time.Duration, _ <-chan struct{}) {
	p.Delay(ttl / 5)
}

// resets resets every connection through the proxy, over and over, until
// stop closes: statements cut off midway, between renewals that pass.
func resets(p *faulttest.Proxy, ttl time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(ttl / 10)
	defer tick.Stop()
	for i := 0; ; i++ {
		if i%3 == 0 {
			p.Reset()
		} else {
			p.Pass()
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// holding is one generator's run on one lease: what it took and how it
// ended.
type holding struct {
	id, first int64
	layout    uidgen.Layout
	ids       []int64
	err       error // the take that ended it; nil where the scenario stopped it
}

// fleetUnder is the scenario of a fleet under a fault: three holders
// reach the store through one proxy, and one directly, each leasing one of
// worker IDs 1 and 2 at the shortest TTL and horizon, taking IDs until a
// take fails, and then leasing again; after a TTL, fault applies to the
// proxy for four TTLs and a horizon, and then the proxy heals for two
// TTLs. Every ID is
// unique and each holding's increase; the holders of one worker ID, in the
// order of their First(), use seconds one after another; a holding ends
// only with an error naming its worker ID. It returns how many times a
// worker ID passed to another holder.
func fleetUnder(t *testing.T, s NetStore, fault func(p *faulttest.Proxy, ttl time.Duration, stop <-chan struct{})) int {
	f := s.Fleet(t)
	p := faulttest.Start(t, s.Addr())
	ttl := s.MinTTL()
	o := Options{TTL: ttl, Horizon: leasing.MinHorizon, WorkerIDs: uidgen.WorkerIDRange{Min: 1, Max: 2}, Every: ttl / 3}
	leasers := []uidgen.Leaser{leased(t, f, o)}
	for range 3 {
		leasers = append(leasers, leased(t, s.Via(t, f, p.Addr()), o))
	}

	stop, faultStop := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var all []holding
	var wg sync.WaitGroup
	for _, l := range leasers {
		wg.Go(func() {
			hs := holdUntil(Context(t), l, stop)
			mu.Lock()
			defer mu.Unlock()
			all = append(all, hs...)
		})
	}
	time.Sleep(ttl) // the fleet runs healthy first: holders lease and take
	var faulting sync.WaitGroup
	faulting.Go(func() { fault(p, ttl, faultStop) })
	time.Sleep(4*ttl + o.Horizon) // the fault's length: holders run out of reservation and lease again
	close(faultStop)
	faulting.Wait()
	p.Pass()
	time.Sleep(2 * ttl) // healed: holders renew, or find their leases lost
	close(stop)
	wg.Wait()
	return checkHoldings(t, all)
}

// holdUntil leases from l and takes IDs from a cached generator on the
// lease until a take fails, again and again until stop closes, and
// returns each run.
func holdUntil(ctx context.Context, l uidgen.Leaser, stop <-chan struct{}) []holding {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel() // a lease still being waited for is not wanted
		case <-ctx.Done():
		}
	}()
	var hs []holding
	for ctx.Err() == nil {
		g, s, err := onLease(ctx, l, cached.Config{})
		if err != nil {
			time.Sleep(10 * time.Millisecond) // the store failed the lease: try again
			continue
		}
		h := holding{id: s.WorkerID(), first: s.First(), layout: g.Layout()}
		for ctx.Err() == nil {
			id, err := g.NextID()
			if err != nil {
				h.err = err
				break
			}
			h.ids = append(h.ids, id)
			time.Sleep(time.Millisecond)
		}
		g.Close()
		hs = append(hs, h)
	}
	return hs
}

// checkHoldings checks fleetUnder's holdings: by worker ID, each holding's
// IDs increase and all are unique; in the order of First(), no two
// holdings share a First() and each one's seconds lie above every earlier
// one's; a holding that ended by itself says its worker ID. It returns
// how many times a worker ID passed to another holding.
func checkHoldings(t *testing.T, all []holding) int {
	t.Helper()
	byID := map[int64][]holding{}
	ended := 0
	for _, h := range all {
		byID[h.id] = append(byID[h.id], h)
		if h.err == nil {
			continue
		}
		ended++
		if !strings.Contains(h.err.Error(), fmt.Sprintf("worker ID %d", h.id)) {
			t.Errorf("a holding of worker ID %d ended with %v, which does not name it", h.id, h.err)
		}
	}
	var took []string
	for id, hs := range byID {
		slices.SortFunc(hs, func(a, b holding) int { return cmp.Compare(a.first, b.first) })
		last := int64(-1) // the last second any earlier holding used
		perHolding := make([][]int64, len(hs))
		for i, h := range hs {
			if i > 0 && h.first == hs[i-1].first {
				t.Errorf("two holdings of worker ID %d start at second %d", id, h.first)
			}
			for _, uid := range h.ids {
				if sec := h.layout.Parse(uid).Time.Unix(); sec <= last {
					t.Fatalf("worker ID %d: a holding from second %d used second %d, not above %d, an earlier holding's", id, h.first, sec, last)
				}
			}
			for _, uid := range h.ids {
				last = max(last, h.layout.Parse(uid).Time.Unix())
			}
			perHolding[i] = h.ids
			took = append(took, fmt.Sprintf("%d:%d", id, len(h.ids)))
		}
		idtest.Check(t, idtest.As(hs[0].layout, id), perHolding)
	}
	t.Logf("%d holdings, %d ended by a failed take (worker ID:IDs taken): %v", len(all), ended, took)
	return len(all) - len(byID)
}
