package cached

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/memleasetest"
	"github.com/seed4d941b13/uidgen/internal/scheme/schemetest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// leaseStart is the clock's second in the lease tests, as Unix seconds.
var leaseStart = uidgen.DefaultLayout().Epoch().Add(time.Hour)

// unix returns the Unix second of uid's time.
func unix(g *Generator, uid int64) int64 { return g.Layout().Parse(uid).Time.Unix() }

// TestLeasedWorkerID: a Leaser is asked for a lease with the layout's
// maximum worker ID, the IDs carry the leased ID, none uses a second below
// the lease's start, and the padder stops at the end of the reservation and
// goes on when a renewal extends it.
func TestLeasedWorkerID(t *testing.T) {
	schemetest.WholeSeconds(t)
	synctest.Test(t, func(t *testing.T) {
		now := leaseStart.Unix()
		// An earlier holder may have used seconds up to now+99.
		leaser := &memleasetest.Leaser{ID: 3, First: now + 100, Reserved: now + 101}
		g := newGenerator(t, Config{
			Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 29, SeqBits: 4}), BoostPower: 3, Leaser: leaser,
			Clock: clocktest.New(leaseStart), RejectedTake: failAfter(time.Second),
		})
		lease, maxWorker := leaser.Lease()
		if maxWorker != 1<<29-1 || g.WorkerID() != 3 {
			t.Fatalf("leased with maximum %d as worker %d, want %d and 3", maxWorker, g.WorkerID(), 1<<29-1)
		}
		ids := make([]int64, 2*perSecond)
		if _, err := g.NextIDs(ids); err != nil {
			t.Fatal(err)
		}
		if first, last := unix(g, ids[0]), unix(g, ids[len(ids)-1]); first != now+100 || last != now+101 {
			t.Fatalf("IDs from %d to %d, want the reserved seconds %d and %d", first, last, now+100, now+101)
		}
		if s := g.Stats(); s.Taken != 2*perSecond || !s.Lease.Leased || s.Lease.Lost || s.Lease.Reserved.Unix() != now+101 {
			t.Fatalf("Stats %+v, want %d taken, the lease held and reserved to the end of second %d", s, 2*perSecond, now+101)
		}
		if lease.Needed() < now+102 {
			t.Fatalf("the lease was told of second %d, want the next one, %d, asked for", lease.Needed(), now+102)
		}
		// Nothing reserved past now+101: the take waits, then fails saying why.
		_, err := g.NextID()
		if err == nil || !strings.Contains(err.Error(), "reservation of worker ID 3 runs out") {
			t.Fatalf("NextID past the reservation = %v, want an error saying the reservation runs out", err)
		}
		lease.Reserve(now + 110)
		expires := leaseStart.Add(42 * time.Second)
		lease.SetExpires(expires)
		if s := g.Stats().Lease; !s.Expires.Equal(expires) || s.Reserved.Unix() != now+110 {
			t.Fatalf("Stats().Lease = %+v, want the lease's Expires, %v, and reserved to the end of second %d", s, expires, now+110)
		}
		synctest.Wait() // the padder's retry
		id, err := g.NextID()
		if err != nil || unix(g, id) != now+102 {
			t.Fatalf("after a renewal NextID = %d (second %d), %v; want second %d", id, unix(g, id), err, now+102)
		}
		idtest.Check(t, g, [][]int64{append(ids, id)})
		synctest.Wait()
		if newest := now + int64(g.Stats().Ahead/time.Second); newest <= now+102 {
			t.Fatalf("the padder put seconds up to %d, want some past the last taken, %d, for Close to leave out", newest, now+102)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		if last, ok := lease.Released(); !ok || last != now+102 {
			t.Fatalf("released at %d (%v), want the second of the last ID taken, %d", last, ok, now+102)
		}
	})
}

// failAfter is a take policy that waits until the producer has stalled for
// limit, sleeping between looks: in a synctest bubble time passes only while
// every goroutine waits, and the default policy yields before it sleeps.
func failAfter(limit time.Duration) func(time.Duration) error {
	return func(stalled time.Duration) error {
		if stalled >= limit {
			return errors.New("stalled")
		}
		time.Sleep(time.Millisecond)
		return nil
	}
}

// TestLeaseLost: once the lease is lost, the reserved IDs still drain, then
// takes fail with ErrLeaseLost.
func TestLeaseLost(t *testing.T) {
	schemetest.WholeSeconds(t)
	synctest.Test(t, func(t *testing.T) {
		now := leaseStart.Unix()
		leaser := &memleasetest.Leaser{ID: 3, First: now, Reserved: now + 1}
		g := newGenerator(t, Config{
			Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 29, SeqBits: 4}), BoostPower: 3, Leaser: leaser,
			Clock: clocktest.New(leaseStart), RejectedTake: failAfter(time.Second),
		})
		lease, _ := leaser.Lease()
		lease.Lose()
		if s := g.Stats().Lease; !s.Leased || !s.Lost {
			t.Fatalf("Stats().Lease = %+v after the lease was lost, want it held and lost", s)
		}
		if _, err := g.NextIDs(make([]int64, 2*perSecond)); err != nil {
			t.Fatalf("the reserved seconds: %v", err)
		}
		if _, err := g.NextID(); !errors.Is(err, uidgen.ErrLeaseLost) {
			t.Fatalf("NextID past a lost lease = %v, want ErrLeaseLost", err)
		}
	})
}

// TestLeaseOutOfRange: a leased ID above the layout's maximum is refused,
// and the lease given back unused.
func TestLeaseOutOfRange(t *testing.T) {
	now := leaseStart.Unix()
	leaser := &memleasetest.Leaser{ID: 1 << 20, First: now, Reserved: now + 10}
	g, err := New(t.Context(), Config{Leaser: leaser, Clock: clocktest.New(leaseStart)})
	if !errors.Is(err, uidgen.ErrWorkerIDRange) || g != nil {
		t.Fatalf("New = %v, %v; want ErrWorkerIDRange", g, err)
	}
	lease, _ := leaser.Lease()
	if last, ok := lease.Released(); !ok || last != now-1 {
		t.Fatalf("released at %d (%v), want %d: nothing used", last, ok, now-1)
	}
}

// TestMaxAhead: under flat-out takes the padder never goes more than
// MaxAhead beyond the clock, and the rate settles at 2^SeqBits a second.
// The clock is the system clock inside a synctest bubble: time passes only
// when every goroutine waits, so the test takes no real time.
func TestMaxAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		g := newGenerator(t, Config{
			Layout:     idtest.LayoutFrom(t, bits.Spec{TimeBits: 30, WorkerBits: 29, SeqBits: 4}, start.AddDate(0, 0, -1)),
			BoostPower: 2, MaxAhead: 2 * time.Second,
		})
		var ids []int64
		settled := 0 // IDs taken in the last 15 s
		for time.Since(start) < 20*time.Second {
			id, err := g.NextID()
			if err != nil {
				t.Fatal(err)
			}
			if ahead := g.Layout().Parse(id).Time.Unix() - time.Now().Unix(); ahead > 2 {
				t.Fatalf("ID %d is %d s ahead of the clock, MaxAhead is 2 s", len(ids), ahead)
			}
			if s := g.Stats(); int64(s.Ahead/time.Second) > 2 {
				t.Fatalf("Stats %+v: more than MaxAhead ahead", s)
			}
			if time.Since(start) >= 5*time.Second {
				settled++
			}
			ids = append(ids, id)
		}
		// Once the ring's first seconds are spent, the takes get 16 IDs a
		// second of the clock: a second's worth either way for the edges.
		if settled < 14*perSecond || settled > 16*perSecond {
			t.Fatalf("%d IDs in the last 15 s, want about %d: 2^SeqBits a second; %+v", settled, 15*perSecond, g.Stats())
		}
		if s := g.Stats(); s.ClockWait < 15*time.Second || s.TakesFailed != 0 || s.Fills > 100 {
			t.Fatalf("Stats %+v: want most of the 20 s held back, no failed take, and the padder woken about once a second", s)
		}
		idtest.Check(t, g, [][]int64{ids})
	})
}

// TestLeaseStartBeyondMaxAhead: a leased ID whose last holder reserved
// seconds further ahead than MaxAhead makes New wait for the clock under its
// ctx: it fails, naming the reservation, and gives the ID back unused when
// ctx ends first, and starts within MaxAhead of the clock when the clock
// comes near. Without MaxAhead it starts at once, ahead of the clock.
func TestLeaseStartBeyondMaxAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := leaseStart.Unix()
		cfg := Config{Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 29, SeqBits: 4}), MaxAhead: 2 * time.Second, Clock: clocktest.New(leaseStart)}

		leaser := &memleasetest.Leaser{ID: 3, First: now + 100, Reserved: now + 200}
		cfg.Leaser = leaser
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		if g, err := New(ctx, cfg); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "more than 2s ahead of the clock") {
			t.Fatalf("New with the lease's start 100 s ahead and MaxAhead 2s = %v, %v; want it to wait and fail with the context", g, err)
		}
		if lease, _ := leaser.Lease(); lease == nil {
			t.Fatal("no lease taken")
		} else if last, ok := lease.Released(); !ok || last != now+99 {
			t.Fatalf("released at %d (%v), want the ID given back unused, at %d", last, ok, now+99)
		}

		clock := clocktest.New(leaseStart)
		cfg.Clock, cfg.Leaser = clock, &memleasetest.Leaser{ID: 3, First: now + 100, Reserved: now + 200}
		go func() {
			time.Sleep(3 * time.Second) // New waits meanwhile
			clock.Advance(98 * time.Second)
		}()
		g := newGenerator(t, cfg)
		id, err := g.NextID()
		if err != nil || unix(g, id) != now+100 || clock.Now().Unix() != now+98 {
			t.Fatalf("first ID of second %d, %v, at the clock's %d; want second %d, within 2 s of the clock", unix(g, id), err, clock.Now().Unix(), now+100)
		}

		cfg.MaxAhead, cfg.Clock, cfg.Leaser = 0, clocktest.New(leaseStart), &memleasetest.Leaser{ID: 3, First: now + 100, Reserved: now + 200}
		if g := newGenerator(t, cfg); int64(g.Stats().Ahead/time.Second) < 100 {
			t.Fatalf("without MaxAhead: %+v, want the generator started at once, 100 s ahead", g.Stats())
		}
	})
}

// TestLeasedTicks: in a layout of millisecond ticks from an epoch 657 ms
// past a whole second, a lease's seconds cover its ticks: the IDs start at
// the first tick at or after the lease's first second, stop with the last
// tick that ends within the reserved seconds, and Close releases the second
// the last ID taken ends in.
func TestLeasedTicks(t *testing.T) {
	schemetest.WholeSeconds(t)
	synctest.Test(t, func(t *testing.T) {
		epoch := time.UnixMilli(1288834974657)
		layout, err := uidgen.NewLayout(bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 2}, time.Millisecond, epoch)
		if err != nil {
			t.Fatal(err)
		}
		now := leaseStart.Unix()
		leaser := &memleasetest.Leaser{ID: 3, First: now + 100, Reserved: now + 101}
		g := newGenerator(t, Config{Layout: layout, BoostPower: 3, Leaser: leaser,
			Clock: clocktest.New(leaseStart), RejectedTake: failAfter(time.Second)})
		lease, _ := leaser.Lease()
		ids := make([]int64, 2*1000*4) // two seconds of 4 IDs a millisecond
		if _, err := g.NextIDs(ids); err != nil {
			t.Fatal(err)
		}
		first, last := g.Layout().Parse(ids[0]).Time, g.Layout().Parse(ids[len(ids)-1]).Time
		if !first.Equal(time.Unix(now+100, 0)) || !last.Equal(time.Unix(now+102, 0).Add(-time.Millisecond)) {
			t.Fatalf("IDs from %v to %v, want every millisecond of seconds %d and %d", first, last, now+100, now+101)
		}
		if _, err := g.NextID(); err == nil || !strings.Contains(err.Error(), "reservation of worker ID 3 runs out") {
			t.Fatalf("NextID past the reservation = %v, want an error saying the reservation runs out", err)
		}
		idtest.Check(t, g, [][]int64{ids})
		lease.Reserve(now + 102)
		synctest.Wait() // the padder's retry
		if id, err := g.NextID(); err != nil || !g.Layout().Parse(id).Time.Equal(time.Unix(now+102, 0)) {
			t.Fatalf("after a renewal NextID = %d (%v), %v; want the first millisecond of second %d", id, g.Layout().Parse(id).Time, err, now+102)
		}
		synctest.Wait()
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		if released, ok := lease.Released(); !ok || released != now+102 {
			t.Fatalf("released at %d (%v), want %d: the second of the last ID taken", released, ok, now+102)
		}
	})
}

// TestCloseRacesTakes: takes race Close, some in flight as it drains the
// ring. Close gives the lease back at the second of the last ID a take
// got, exactly: no take gets an ID above it, and the ring's later seconds
// are not spent.
func TestCloseRacesTakes(t *testing.T) {
	for round := range sizetest.Pick(20, 5) {
		now := time.Now().Unix()
		leaser := &memleasetest.Leaser{ID: 3, First: now, Reserved: now + 3600}
		g, err := New(context.Background(), Config{
			Layout: idtest.Layout(t, bits.Spec{TimeBits: 30, WorkerBits: 20, SeqBits: 5 + round%4}),
			Leaser: leaser,
			MaxLag: -1,
		})
		if err != nil {
			t.Fatal(err)
		}
		got := make([][]int64, 8)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() {
				dst := make([]int64, 1+i%3*7)
				for {
					if i%2 == 0 {
						id, err := g.NextID()
						if err != nil {
							return
						}
						got[i] = append(got[i], id)
						continue
					}
					n, err := g.NextIDs(dst)
					got[i] = append(got[i], dst[:n]...)
					if err != nil {
						return
					}
				}
			})
		}
		for g.Stats().Taken < int64(100*(round+1)) {
			runtime.Gosched()
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		idtest.Check(t, g, got)
		top := int64(0)
		for _, ids := range got {
			for _, id := range ids {
				top = max(top, unix(g, id))
			}
		}
		lease, _ := leaser.Lease()
		if last, ok := lease.Released(); !ok || last != top {
			t.Fatalf("round %d: released at %d (%v); the last ID taken is of second %d (the padder put up to %v ahead)",
				round, last, ok, top, g.Stats().Ahead)
		}
	}
}
