package etcdworker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/etcdtest"
	"github.com/seed4d941b13/uidgen/internal/leaktest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
)

// renewer is the function of a lease's goroutine, for leaktest.Running.
const renewer = "github.com/seed4d941b13/uidgen/internal/leasing.(*Lease).renew"

// testContext returns a context that ends with the test or after a
// minute, whichever is first.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// fleet is a test's own fleet: a prefix of its own on a one-member
// cluster.
type fleet struct {
	c      *clientv3.Client
	prefix string
}

func newFleet(t *testing.T) fleet {
	t.Helper()
	cluster := etcdtest.Start(t, 1)
	return fleet{c: cluster.Client(t), prefix: "/test/" + t.Name() + "/"}
}

// leased returns a Leased of cfg on the fleet.
func (f fleet) leased(t testing.TB, cfg Config) *Leased {
	t.Helper()
	cfg.Client, cfg.Prefix = f.c, f.prefix
	l, err := NewLeased(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// reserved returns the value of reserved/id, or -1 where the key is absent.
func (f fleet) reserved(t testing.TB, id int64) int64 {
	t.Helper()
	resp, err := f.c.Get(testContext(t), reservedKey(f.prefix, id))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return -1
	}
	v, err := strconv.ParseInt(string(resp.Kvs[0].Value), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// put sets key to value, as another holder's transaction would.
func (f fleet) put(t testing.TB, key, value string, opts ...clientv3.OpOption) {
	t.Helper()
	if _, err := f.c.Put(testContext(t), key, value, opts...); err != nil {
		t.Fatal(err)
	}
}

// expire ends the etcd lease of s, as its TTL passing without a renewal
// would: etcd deletes held/ID.
func (f fleet) expire(t *testing.T, s *lease) {
	t.Helper()
	if _, err := f.c.Revoke(testContext(t), s.store.lease); err != nil {
		t.Fatal(err)
	}
}

// mustLease leases an ID up to maxID, released with lastUsed Start()-1 when
// the test ends unless the test released it.
func mustLease(t testing.TB, l *Leased, maxID int64) *lease {
	t.Helper()
	return leasetest.Must[*lease](t, testContext(t), l, maxID)
}

// renewNow makes s's renewer renew once and fails t if it did not.
func renewNow(t testing.TB, s *lease) {
	t.Helper()
	if err := s.RenewNow(testContext(t)); err != nil {
		t.Fatalf("renewal: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	c, err := NewClient([]string{"http://127.0.0.1:1"}, nil) // never dialled: the checks send nothing
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tt := range []struct {
		cfg  Config
		want error
		text string
	}{
		{Config{}, ErrNilClient, "Config.Client is nil"},
		{Config{Client: c, Prefix: "/fleet\n"}, ErrPrefix, `"/fleet\n" holds '\n'`},
		{Config{Client: c, LeaseTTL: time.Second}, ErrLeaseTTL, "1s, want 2s to 1h0m0s"},
		{Config{Client: c, LeaseTTL: 2 * time.Hour}, ErrLeaseTTL, "2h0m0s, want 2s to 1h0m0s"},
		{Config{Client: c, LeaseHorizon: -time.Second}, ErrLeaseHorizon, "-1s, want 1s to 24h0m0s"},
	} {
		_, err := NewLeased(tt.cfg)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "etcdworker: ") {
			t.Errorf("NewLeased(%+v): %v, want %q naming %q", tt.cfg, err, tt.want, tt.text)
		}
	}
	if _, err := List(t.Context(), Config{}); !errors.Is(err, ErrNilClient) {
		t.Errorf("List without a client: %v, want %q", err, ErrNilClient)
	}
	if _, err := NewClient(nil, nil); err == nil {
		t.Error("NewClient with no endpoints: no error")
	}
	l, err := NewLeased(Config{Client: c, Prefix: "/a"})
	if err != nil {
		t.Fatal(err)
	}
	if l.prefix != "/a/" {
		t.Errorf("prefix %q, want %q: a fleet's keys must not run into another fleet's", l.prefix, "/a/")
	}
	if _, err := l.LeaseWorkerID(t.Context(), 0); !errors.Is(err, ErrMaxWorkerID) {
		t.Errorf("LeaseWorkerID(0): %v, want %q", err, ErrMaxWorkerID)
	}
}

// TestLeaseLowestFreeFirst leases, releases and leases again: the lowest
// free ID comes back, its keys read as the package doc shows, and the next
// holder starts above what the last one used.
func TestLeaseLowestFreeFirst(t *testing.T) {
	f := newFleet(t)
	l := f.leased(t, Config{})
	ctx := testContext(t)
	var held []*lease
	for want := int64(1); want <= 3; want++ {
		s := mustLease(t, l, 7)
		if s.WorkerID() != want {
			t.Fatalf("lease %d: worker ID %d, want %d", want, s.WorkerID(), want)
		}
		held = append(held, s)
	}
	resp, err := f.c.Get(ctx, heldKey(f.prefix, 2))
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("held/2: %v, %v", resp, err)
	}
	var h holder
	if err := json.Unmarshal(resp.Kvs[0].Value, &h); err != nil || h.Host == "" || h.PID == 0 || h.Since.IsZero() {
		t.Errorf("held/2 holds %s (%v), want the holder's host, pid and since", resp.Kvs[0].Value, err)
	}
	if got := f.reserved(t, 2); got != held[1].Reserved() {
		t.Errorf("reserved/2 holds %d, want the lease's Reserved() %d", got, held[1].Reserved())
	}

	lastUsed := held[1].First() + 3
	if err := held[1].Wait(ctx, lastUsed); err != nil {
		t.Fatal(err)
	}
	if err := held[1].Release(ctx, lastUsed); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if got := f.reserved(t, 2); got != lastUsed {
		t.Errorf("reserved/2 holds %d after Release, want the last second used, %d", got, lastUsed)
	}
	again := mustLease(t, l, 7)
	if again.WorkerID() != 2 || again.First() <= lastUsed {
		t.Errorf("after releasing 2: worker ID %d from %d, want 2 from above %d", again.WorkerID(), again.First(), lastUsed)
	}
	if s := mustLease(t, l, 7); s.WorkerID() != 4 {
		t.Errorf("next: worker ID %d, want 4", s.WorkerID())
	}
}

// TestLeaseStartsAboveReservation takes an ID whose reservation runs ahead
// of the clock: the holder starts above it, whatever the clock says.
func TestLeaseStartsAboveReservation(t *testing.T) {
	f := newFleet(t)
	ahead := time.Now().Unix() + 20 // hot, beyond leasing.ColdSlack
	f.put(t, reservedKey(f.prefix, 1), strconv.FormatInt(ahead, 10))
	s := mustLease(t, f.leased(t, Config{}), 1)
	if s.WorkerID() != 1 || s.First() != ahead+1 {
		t.Errorf("worker ID %d from %d, want 1 from %d, above the reservation", s.WorkerID(), s.First(), ahead+1)
	}
}

// TestLeaseColdFirst: a free ID whose reservation has passed first, then
// an ID never leased, and an ID reserved ahead only when nothing else is
// free, the one whose reservation ends soonest.
func TestLeaseColdFirst(t *testing.T) {
	f := newFleet(t)
	now := time.Now().Unix()
	f.put(t, reservedKey(f.prefix, 1), strconv.FormatInt(now+1000, 10)) // hot
	f.put(t, reservedKey(f.prefix, 2), strconv.FormatInt(now+500, 10))  // hot, soonest
	f.put(t, reservedKey(f.prefix, 3), strconv.FormatInt(now-5, 10))    // cold
	l := f.leased(t, Config{})
	for _, want := range []struct{ id, start int64 }{{3, now - 4}, {4, now}, {2, now + 501}, {1, now + 1001}} {
		s := mustLease(t, l, 4)
		if s.WorkerID() != want.id || s.First() < want.start || s.First() > max(want.start, time.Now().Unix()) {
			t.Errorf("worker ID %d from %d, want %d from %d", s.WorkerID(), s.First(), want.id, want.start)
		}
	}
}

// TestLeaseLost lets the holder's lease end and another process take the
// ID: the old holder's renewal finds the lease lost, extends nothing, and
// its Release gives nothing back. The lease ends by its etcd lease
// expiring, which the keep-alive sees; and by held/ID going between the
// keep-alive and the transaction, which only the transaction's comparison
// sees.
func TestLeaseLost(t *testing.T) {
	f := newFleet(t)
	for _, tt := range []struct {
		name string
		end  func(t *testing.T, s *lease)
	}{
		{"expired", f.expire},
		{"after the keep-alive", func(t *testing.T, s *lease) {
			if _, err := f.c.Delete(testContext(t), s.store.held); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) { testLeaseLost(t, f, tt.end) })
	}
}

func testLeaseLost(t *testing.T, f fleet, end func(t *testing.T, s *lease)) {
	f.prefix += t.Name() + "/"
	l := f.leased(t, Config{})
	ctx := testContext(t)
	a := mustLease(t, l, 1)
	reserved := a.Reserved()
	end(t, a)
	b := mustLease(t, l, 1)
	if b.First() <= reserved {
		t.Fatalf("new holder starts at %d, want above the old reservation %d", b.First(), reserved)
	}
	bReserved := f.reserved(t, 1)

	if err := a.store.Extend(ctx, bReserved+1000); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("the old holder's Extend after the takeover: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if err := a.RenewNow(ctx); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("the old holder's renewal: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if err := a.Err(); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("Err after the takeover: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	select {
	case <-a.Done(): // the renewer ends by itself
	case <-ctx.Done():
		t.Fatal("the old holder's renewer still runs after the loss")
	}
	if a.Reserved() != reserved {
		t.Errorf("Reserved %d after the loss, want %d as before", a.Reserved(), reserved)
	}
	if got := f.reserved(t, 1); got != bReserved {
		t.Errorf("reserved/1 holds %d after the old holder's renewals, want the new holder's %d", got, bReserved)
	}
	if err := a.Wait(ctx, reserved+1); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("Wait past the reservation: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if err := a.Release(ctx, reserved); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("Release of a lost lease: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if got := f.reserved(t, 1); got != bReserved {
		t.Errorf("reserved/1 holds %d after the old holder's Release, want %d", got, bReserved)
	}
	renewNow(t, b)
}

// TestReservationNeverFalls renews at a pace far below the last renewal's:
// reserved/ID never falls below what the holder may use.
func TestReservationNeverFalls(t *testing.T) {
	f := newFleet(t)
	s := mustLease(t, f.leased(t, Config{}), 1)
	ctx := testContext(t)
	high := s.Reserved() + 10_000
	if err := s.store.Extend(ctx, high); err != nil {
		t.Fatal(err)
	}
	if err := s.store.Extend(ctx, s.Reserved()); err != nil {
		t.Fatal(err)
	}
	if got := f.reserved(t, 1); got != high {
		t.Errorf("reserved/1 holds %d after a lower renewal, want %d: a renewal whose answer was lost may have let the holder use it", got, high)
	}
}

// TestLeaseRelease: Release records the last second used, never below
// Start()-1, deletes held/ID so the ID is free at once, and a renewal of
// the released holder still on its way extends nothing.
func TestLeaseRelease(t *testing.T) {
	f := newFleet(t)
	f.put(t, reservedKey(f.prefix, 1), strconv.FormatInt(time.Now().Unix()-100, 10))
	l := f.leased(t, Config{})
	ctx := testContext(t)
	a := mustLease(t, l, 1)
	if err := a.Release(ctx, 0); err != nil { // a holder that used nothing
		t.Fatal(err)
	}
	if got := f.reserved(t, 1); got != a.First()-1 {
		t.Errorf("reserved/1 holds %d after Release(0), want Start()-1 = %d", got, a.First()-1)
	}
	if err := a.store.Extend(ctx, a.First()+1000); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("Extend after Release: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if err := a.Wait(ctx, a.Reserved()+1); !errors.Is(err, ErrReleased) {
		t.Errorf("Wait after Release: %v, want %q", err, ErrReleased)
	}
	if err := a.Release(ctx, 5); err != nil {
		t.Errorf("a second Release: %v, want the first one's nil", err)
	}
	b := mustLease(t, l, 1)
	if b.First() != a.First() {
		t.Errorf("the next holder starts at %d, want %d, right above what the last one recorded", b.First(), a.First())
	}
	select {
	case <-a.Done():
	default:
		t.Error("the released lease's renewer still runs")
	}
}

// TestLeaseHorizon: a holder at idle has a whole horizon reserved ahead of
// the clock, so it goes on that long without etcd.
func TestLeaseHorizon(t *testing.T) {
	f := newFleet(t)
	const horizon = 90 * time.Second
	s := mustLease(t, f.leased(t, Config{LeaseHorizon: horizon, LeaseTTL: 3 * time.Second}), 1)
	before := time.Now().Unix() // the renewal reserves from its own time, not the check's
	renewNow(t, s)
	if ahead := s.Reserved() - before; ahead < int64(horizon/time.Second) {
		t.Errorf("reserved %d s ahead at idle, want the horizon, %v", ahead, horizon)
	}
}

// TestLeaseNoFreeID: with every ID held, LeaseWorkerID waits, and fails
// naming the IDs held once ctx ends; an ID released meanwhile is taken.
func TestLeaseNoFreeID(t *testing.T) {
	f := newFleet(t)
	l := f.leased(t, Config{})
	l.poll = 20 * time.Millisecond
	a := mustLease(t, l, 1)
	// Long enough for a full read of the fleet under -race on a loaded
	// machine, and many polls.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	_, err := l.LeaseWorkerID(ctx, 1)
	if !errors.Is(err, ErrNoFreeID) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "all 1 IDs from 1 to 1 are held") {
		t.Errorf("LeaseWorkerID with every ID held: %v, want %q and %q", err, ErrNoFreeID, context.DeadlineExceeded)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		a.Release(context.Background(), a.First())
	}()
	if b := mustLease(t, l, 1); b.WorkerID() != 1 || b.First() <= a.First() {
		t.Errorf("after the release: worker ID %d from %d, want 1 from above %d", b.WorkerID(), b.First(), a.First())
	}
}

// TestLeaseNoFreeIDCutOff: with every ID held, a ctx that ends while
// LeaseWorkerID reads the fleet again still fails with ErrNoFreeID: the read
// cut off says nothing of the fleet, and the one before found every ID held.
func TestLeaseNoFreeIDCutOff(t *testing.T) {
	f := newFleet(t)
	l := f.leased(t, Config{})
	l.poll = time.Millisecond
	mustLease(t, l, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	calls := 0
	// now is called as each read of the fleet starts; the second read
	// starts with ctx cancelled.
	l.now = func() time.Time {
		if calls++; calls == 2 {
			cancel()
		}
		return time.Now()
	}
	_, err := l.LeaseWorkerID(ctx, 1)
	if !errors.Is(err, ErrNoFreeID) || !errors.Is(err, context.Canceled) || calls != 2 {
		t.Errorf("LeaseWorkerID cut off in its second read of the fleet: %v after %d reads, want %q and %q after 2",
			err, calls, ErrNoFreeID, context.Canceled)
	}
}

// TestLeaseConcurrent has goroutines lease, use and release the same few
// IDs at once: no ID is held twice at once, and no holder uses a second a
// predecessor used.
func TestLeaseConcurrent(t *testing.T) {
	goroutines, rounds := 12, 8
	if testing.Short() {
		goroutines, rounds = 6, 4
	}
	const maxID = 3
	f := newFleet(t)
	l := f.leased(t, Config{})
	l.poll = 5 * time.Millisecond
	ctx := testContext(t)

	var mu sync.Mutex
	holder := map[int64]int{}          // worker ID -> goroutine holding it
	used := map[int64]map[int64]bool{} // worker ID -> seconds its holders used
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			errs <- func() error {
				for r := range rounds {
					got, err := l.LeaseWorkerID(ctx, maxID)
					if err != nil {
						return err
					}
					id, start := got.WorkerID(), got.First()
					last := start + int64(r%3)
					if err := got.Wait(ctx, last); err != nil {
						return err
					}
					mu.Lock()
					other, held := holder[id]
					holder[id] = g
					if used[id] == nil {
						used[id] = map[int64]bool{}
					}
					for sec := start; sec <= last; sec++ {
						if used[id][sec] {
							mu.Unlock()
							return fmt.Errorf("worker ID %d: second %d used twice; this holder started at %d", id, sec, start)
						}
						used[id][sec] = true
					}
					delete(holder, id)
					mu.Unlock()
					if held {
						return fmt.Errorf("worker ID %d leased to goroutines %d and %d at once", id, other, g)
					}
					if err := got.Release(ctx, last); err != nil {
						return err
					}
				}
				return nil
			}()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := leaktest.Settle(renewer, 5*time.Second); n != 0 {
		t.Errorf("%d renewers run after every lease was released", n)
	}
}

// TestLeaseRange: leasetest.Range on a fleet of its own; reserved/4 keeps
// its reservation.
func TestLeaseRange(t *testing.T) {
	f := newFleet(t)
	var four int64
	leasetest.Range(t, testContext(t), ErrNoFreeID, "etcdworker: lease a worker ID under "+f.prefix, func(r uidgen.WorkerIDRange) uidgen.Leaser {
		if r.Min == 5 {
			four = f.reserved(t, 4)
		}
		l := f.leased(t, Config{WorkerIDs: r})
		l.poll = 5 * time.Millisecond
		return l
	})
	if got := f.reserved(t, 4); got != four {
		t.Errorf("reserved/4, outside 5-8: %d after the leases, was %d", got, four)
	}
}

// TestLeaseRangeErrors: leasetest.RangeErrors on a fleet of its own, which
// holds no key after it.
func TestLeaseRangeErrors(t *testing.T) {
	f := newFleet(t)
	leasetest.RangeErrors(t, testContext(t), "etcdworker", "etcdworker: lease a worker ID under "+f.prefix,
		func(r uidgen.WorkerIDRange) (uidgen.Leaser, error) {
			return NewLeased(Config{Client: f.c, Prefix: f.prefix, WorkerIDs: r})
		})
	resp, err := f.c.Get(testContext(t), f.prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || resp.Count != 0 {
		t.Errorf("keys under %s after a lease of a range too wide: %v (%v), want none", f.prefix, resp, err)
	}
}

// TestList shows a held and a free ID as `uidgen workers -etcd` prints
// them.
func TestList(t *testing.T) {
	f := newFleet(t)
	l := f.leased(t, Config{LeaseTTL: 30 * time.Second})
	a, b := mustLease(t, l, 7), mustLease(t, l, 7)
	ctx := testContext(t)
	if err := b.Release(ctx, b.First()); err != nil {
		t.Fatal(err)
	}
	rows, err := List(ctx, Config{Client: f.c, Prefix: f.prefix})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("List: %+v, want IDs 1 and 2", rows)
	}
	held, free := rows[0], rows[1]
	if held.ID != 1 || !held.Held || held.PID == 0 || held.LeaseLeft <= 0 || held.LeaseLeft > 30*time.Second ||
		held.LastReserved != a.Reserved() || held.ReservedAhead <= 0 {
		t.Errorf("held row %+v; want ID 1, held, with its holder, lease left and reservation %d", held, a.Reserved())
	}
	if free.ID != 2 || free.Held || free.PID != 0 || free.LeaseLeft != 0 || free.LastReserved != b.First() {
		t.Errorf("free row %+v; want ID 2, free, reserved to %d", free, b.First())
	}
	f.put(t, f.prefix+"held/x", "{}")
	if _, err := List(ctx, Config{Client: f.c, Prefix: f.prefix}); !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), "held/x") {
		t.Errorf("List with a stray key: %v, want %q naming it", err, ErrBadKey)
	}
}

// TestUnreachable: a cluster that does not answer fails LeaseWorkerID when
// its context ends, naming the endpoints.
func TestUnreachable(t *testing.T) {
	c, err := NewClient([]string{"http://127.0.0.1:1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	l, err := NewLeased(Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err = l.LeaseWorkerID(ctx, 7)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer from the etcd cluster at http://127.0.0.1:1") {
		t.Errorf("LeaseWorkerID from a cluster that does not answer: %v, want %q naming the endpoint", err, context.DeadlineExceeded)
	}
}
