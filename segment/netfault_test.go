package segment

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/faulttest"
)

// TestNetFault: generator A reaches the tag's row through a proxy and B
// directly, both taking steadily, with ranges small beside the rate so
// that they claim often; for two seconds while it runs, A is cut off by a
// partition, by replies dropped, or by its connections reset over and
// over, and then healed. No number is handed out twice, each generator's
// increase, A takes again after the heal, and the numbers below the final
// max_id never handed out are at most what a crash may lose, 1.5 ×
// MaxStep, for each time A was cut off: a claim that commits unheard is
// lost, as a crashed generator's range is. A SQLite file has no network.
func TestNetFault(t *testing.T) {
	for _, kind := range dbtest.ServerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			srv := dbtest.Shared(t, kind)
			for _, tt := range []struct {
				name string
				cut  func(p *faulttest.Proxy, heal <-chan struct{}) int
			}{
				{"Partition", func(p *faulttest.Proxy, heal <-chan struct{}) int { p.Blackhole(); <-heal; return 1 }},
				{"ReplyLost", func(p *faulttest.Proxy, heal <-chan struct{}) int { p.DropReplies(); <-heal; return 1 }},
				{"Resets", resetsUntil},
			} {
				t.Run(tt.name, func(t *testing.T) { claimerCutOff(t, srv, tt.cut) })
			}
		})
	}
}

// resetsUntil resets A's connections every 100 ms, passing between, until
// heal closes, and returns how many times.
func resetsUntil(p *faulttest.Proxy, heal <-chan struct{}) int {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for n := 0; ; n++ {
		p.Reset()
		for range 2 {
			select {
			case <-heal:
				return n + 1
			case <-tick.C:
			}
			p.Pass()
		}
	}
}

// netStep is the step and MaxStep of claimerCutOff's tag: ranges small
// beside the rate, so that the generators claim every tenth of a second.
const netStep = 1000

func claimerCutOff(t *testing.T, srv dbtest.Server, cut func(p *faulttest.Proxy, heal <-chan struct{}) int) {
	db := srv.Open(t)
	table := dbtest.Table(t, db, "leaf_alloc_")
	if err := EnsureSchema(testContext(t), Config{DB: db, Table: table}); err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}
	p := faulttest.Start(t, srv.Addr())
	cfgB := Config{DB: db, Table: table, Tag: "netfault", Step: netStep, MaxStep: netStep, RingSize: 64}
	cfgA := cfgB
	cfgA.DB = srv.With("", "", p.Addr(), "").Open(t)
	idsA, idsB, cuts, back := takeCutOff(t, open(t, cfgA), open(t, cfgB), p, cut)

	for name, ids := range map[string][]int64{"A": idsA, "B": idsB} {
		for i := 1; i < len(ids); i++ {
			if ids[i] <= ids[i-1] {
				t.Fatalf("generator %s: number %d after %d", name, ids[i], ids[i-1])
			}
		}
	}
	_, after, last := passMaxID(t, cfgB)
	checkUnique(t, idsA, idsB, last)
	lost := lostBelow(after.Next, idsA, idsB, last)
	if bound := int64(cuts) * netStep * 3 / 2; lost > bound {
		t.Errorf("%d numbers below max_id %d never handed out, want at most 1.5 × MaxStep for each of %d cuts, %d, what as many crashes may lose",
			lost, after.Next, cuts, bound)
	}
	t.Logf("A took %d numbers, B %d; A cut off %d times, took again %v after the heal; %d below max_id %d never handed out",
		len(idsA), len(idsB), cuts, back.Round(time.Millisecond), lost, after.Next)
}

// takeCutOff has a and b take steadily while cut cuts a off, through p,
// for two seconds, and then until a takes again after the heal; then it
// closes both. It returns what each took, how many times cut cut a off,
// and how long after the heal a took again.
func takeCutOff(t *testing.T, a, b *Generator, p *faulttest.Proxy, cut func(p *faulttest.Proxy, heal <-chan struct{}) int) (
	idsA, idsB []int64, cuts int, back time.Duration) {
	t.Helper()
	// recovery bounds how long after the heal a may still fail: a claim
	// still on its way, and the claimer's longest back-off.
	const recovery = claimTimeout + 10*time.Second
	stop := make(chan struct{})
	var tookA atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() { idsA = takeThrough(a, stop, &tookA) })
	wg.Go(func() { idsB = takeThrough(b, stop, new(atomic.Int64)) })
	defer func() {
		close(stop)
		wg.Wait()
		for _, g := range []*Generator{a, b} {
			if err := g.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	}()
	time.Sleep(500 * time.Millisecond) // both take, and claim
	heal, cutsC := make(chan struct{}), make(chan int, 1)
	go func() { cutsC <- cut(p, heal) }()
	time.Sleep(2 * time.Second) // a's claims hang, fail, or commit unheard
	close(heal)
	cuts = <-cutsC
	p.Pass()
	healed, at := time.Now(), tookA.Load()
	for tookA.Load() == at {
		if time.Since(healed) > recovery {
			t.Errorf("A took nothing in the %v after the heal", recovery)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	back = time.Since(healed)
	return // the deferred Wait, after which idsA and idsB are whole
}

// takeThrough takes from g steadily until stop closes, counting each
// number in took, through failed takes, which a cut-off generator's are,
// and returns what it took, in order.
func takeThrough(g *Generator, stop <-chan struct{}, took *atomic.Int64) []int64 {
	var got []int64
	for {
		select {
		case <-stop:
			return got
		default:
		}
		id, err := g.NextID()
		if err != nil {
			time.Sleep(10 * time.Millisecond) // cut off: take again soon
			continue
		}
		got = append(got, id)
		took.Add(1)
		if len(got)%100 == 0 {
			time.Sleep(10 * time.Millisecond) // a steady rate, which sizes the claims
		}
	}
}

// lostBelow returns how many numbers from 1 below next no list holds.
func lostBelow(next int64, lists ...[]int64) int64 {
	handed := map[int64]bool{}
	for _, l := range lists {
		for _, v := range l {
			handed[v] = true
		}
	}
	lost := int64(0)
	for v := int64(1); v < next; v++ {
		if !handed[v] {
			lost++
		}
	}
	return lost
}
