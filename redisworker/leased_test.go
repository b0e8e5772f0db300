package redisworker

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/leaktest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/redistest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
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

// fleet is a test's own fleet: the server that holds its keys, a client
// of the deployment, and a prefix.
type fleet struct {
	s      *redistest.Server
	c      redis.UniversalClient
	prefix string // tagged, as NewLeased keeps it
}

// newFleet starts the fleet's server with the config lines given.
func newFleet(t *testing.T, config ...string) fleet {
	t.Helper()
	s := redistest.Start(t, config...)
	return fleet{s: s, c: s.Client(t), prefix: "{test}:"}
}

// leased returns a Leased of cfg on the fleet, through the fleet's client
// unless cfg names one.
func (f fleet) leased(t testing.TB, cfg Config) *Leased {
	t.Helper()
	cfg.Client, cfg.Prefix = cmp.Or(cfg.Client, f.c), f.prefix
	l, err := NewLeased(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// reserved returns the value of reserved:id, or -1 where the key is absent.
func (f fleet) reserved(t testing.TB, id int64) int64 {
	t.Helper()
	v, err := f.c.Get(testContext(t), reservedKey(f.prefix, id)).Result()
	if errors.Is(err, redis.Nil) {
		return -1
	}
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// held returns the value of held:id, "" where the key is absent.
func (f fleet) held(t testing.TB, id int64) string {
	t.Helper()
	v, err := f.c.Get(testContext(t), heldKey(f.prefix, id)).Result()
	if errors.Is(err, redis.Nil) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// reserve leaves ID id free and reserved to second sec, as an earlier
// holder's release would.
func (f fleet) reserve(t testing.TB, id, sec int64) {
	t.Helper()
	ctx := testContext(t)
	if err := f.c.Set(ctx, reservedKey(f.prefix, id), sec, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := f.c.ZAdd(ctx, idsKey(f.prefix), redis.Z{Score: float64(id), Member: id}).Err(); err != nil {
		t.Fatal(err)
	}
}

// expire makes held:id expire now, as its TTL running out without a
// renewal would, and waits until the server has deleted it.
func (f fleet) expire(t testing.TB, id int64) {
	t.Helper()
	ctx := testContext(t)
	if err := f.c.PExpire(ctx, heldKey(f.prefix, id), time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	for {
		n, err := f.c.Exists(ctx, heldKey(f.prefix, id)).Result()
		if err != nil {
			t.Fatalf("held:%d did not expire: %v", id, err)
		}
		if n == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// storeOf returns the keyStore of the lease s holds now, which acts as s's
// renewals and release do: its value is what held:ID holds.
func (f fleet) storeOf(t testing.TB, l *Leased, s *lease) *keyStore {
	t.Helper()
	id := s.WorkerID()
	value := f.held(t, id)
	if value == "" {
		t.Fatalf("held:%d is absent, want the lease's", id)
	}
	return &keyStore{l: l, id: id, held: heldKey(f.prefix, id), reserved: reservedKey(f.prefix, id), value: value}
}

// mustLease leases an ID up to maxID, released with lastUsed First()-1 when
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
	// Never dialled: the checks send nothing.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer ring.Close()
	for _, tt := range []struct {
		name string
		cfg  Config
		want error
		text string
	}{
		{"nil client", Config{}, ErrNilClient, "Config.Client is nil"},
		{"non-ASCII", Config{Client: c, Prefix: "{bestellungen}:ä"}, ErrPrefix, `"{bestellungen}:ä" holds 'ä'`},
		{"control character", Config{Client: c, Prefix: "{orders}\n"}, ErrPrefix, `"{orders}\n" holds '\n'`},
		{"two hash tags", Config{Client: c, Prefix: "{eu}{orders}:"}, ErrPrefix, `"{eu}{orders}:", want one hash tag`},
		{"empty hash tag", Config{Client: c, Prefix: "{}:"}, ErrPrefix, `"{}:", want one hash tag`},
		{"open brace alone", Config{Client: c, Prefix: "{orders:"}, ErrPrefix, `"{orders:", want one hash tag`},
		{"close brace alone", Config{Client: c, Prefix: "orders}:"}, ErrPrefix, `"orders}:", want one hash tag`},
		{"braces reversed", Config{Client: c, Prefix: "}orders{:"}, ErrPrefix, `"}orders{:", want one hash tag`},
		{"TTL too short", Config{Client: c, LeaseTTL: time.Millisecond}, ErrLeaseTTL, "1ms, want 1s to 1h0m0s"},
		{"TTL too long", Config{Client: c, LeaseTTL: 2 * time.Hour}, ErrLeaseTTL, "2h0m0s, want 1s to 1h0m0s"},
		{"negative TTL", Config{Client: c, LeaseTTL: -time.Second}, ErrLeaseTTL, "-1s, want 1s to 1h0m0s"},
		{"horizon too short", Config{Client: c, LeaseHorizon: time.Millisecond}, ErrLeaseHorizon, "1ms, want 1s to 24h0m0s"},
		{"horizon too long", Config{Client: c, LeaseHorizon: 25 * time.Hour}, ErrLeaseHorizon, "25h0m0s, want 1s to 24h0m0s"},
		{"negative replicas", Config{Client: c, Replicas: -1}, ErrReplicas, "Config.Replicas is -1, want 0 or more"},
		{"replicas on a ring", Config{Client: ring, Replicas: 1}, ErrReplicas, "Config.Replicas is 1 on a Redis Ring, want 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewLeased(tt.cfg)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "redisworker: ") {
				t.Errorf("NewLeased: %v, want %q naming %q", err, tt.want, tt.text)
			}
			if tt.want == ErrLeaseTTL || tt.want == ErrLeaseHorizon {
				return // only NewLeased reads them
			}
			if _, err := List(t.Context(), tt.cfg); !errors.Is(err, tt.want) {
				t.Errorf("List: %v, want %q", err, tt.want)
			}
		})
	}

	for _, tt := range []struct{ prefix, want string }{
		{"", DefaultPrefix},
		{"orders:", "{orders:}"},
		{"{orders}:", "{orders}:"},
		{"eu:{orders}:", "eu:{orders}:"},
	} {
		l, err := NewLeased(Config{Client: c, Prefix: tt.prefix})
		if err != nil {
			t.Fatalf("prefix %q: %v", tt.prefix, err)
		}
		if l.prefix != tt.want {
			t.Errorf("prefix %q keeps its keys under %q, want %q: one hash tag, so one slot", tt.prefix, l.prefix, tt.want)
		}
	}
	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}})
	defer cluster.Close()
	if _, err := NewLeased(Config{Client: cluster, Replicas: 1}); err != nil {
		t.Errorf("a cluster client with a replica asked: %v", err)
	}

	l, err := NewLeased(Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	for _, maxID := range []int64{0, -1} {
		if _, err := l.LeaseWorkerID(t.Context(), maxID); !errors.Is(err, ErrMaxWorkerID) || !strings.Contains(err.Error(), fmt.Sprint(maxID)) {
			t.Errorf("LeaseWorkerID(%d): %v, want %q naming it", maxID, err, ErrMaxWorkerID)
		}
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

	keys, err := f.c.Keys(ctx, f.prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	want := []string{"{test}:held:1", "{test}:held:2", "{test}:held:3", "{test}:ids",
		"{test}:reserved:1", "{test}:reserved:2", "{test}:reserved:3"}
	if !slices.Equal(keys, want) {
		t.Errorf("keys under the prefix: %q, want %q", keys, want)
	}
	var h holder
	value := f.held(t, 2)
	if err := json.Unmarshal([]byte(value), &h); err != nil || h.Host == "" || h.PID == 0 || h.Since.IsZero() {
		t.Errorf("held:2 holds %s (%v), want the holder's host, pid and since", value, err)
	}
	if token, err := hex.DecodeString(h.Token); err != nil || len(token) != 16 {
		t.Errorf("held:2 holds token %q (%v), want 16 random bytes in hex", h.Token, err)
	}
	if ttl, err := f.c.PTTL(ctx, heldKey(f.prefix, 2)).Result(); err != nil || ttl <= 0 || ttl > DefaultLeaseTTL {
		t.Errorf("held:2 expires in %v (%v), want within the lease TTL, %v", ttl, err, DefaultLeaseTTL)
	}
	if got := f.reserved(t, 2); got != held[1].Reserved() {
		t.Errorf("reserved:2 holds %d, want the lease's Reserved() %d", got, held[1].Reserved())
	}

	lastUsed := held[1].First() + 3
	if err := held[1].Wait(ctx, lastUsed); err != nil {
		t.Fatal(err)
	}
	if err := held[1].Release(ctx, lastUsed); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if got := f.reserved(t, 2); got != lastUsed {
		t.Errorf("reserved:2 holds %d after Release, want the last second used, %d", got, lastUsed)
	}
	if v := f.held(t, 2); v != "" {
		t.Errorf("held:2 holds %s after Release, want it deleted", v)
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
	ahead := time.Now().Unix() + 20 // hot, beyond coldSlack
	f.reserve(t, 1, ahead)
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
	f.reserve(t, 1, now+1000) // hot
	f.reserve(t, 2, now+500)  // hot, soonest
	f.reserve(t, 3, now-5)    // cold
	l := f.leased(t, Config{})
	for _, want := range []struct{ id, start int64 }{{3, now - 4}, {4, now}, {2, now + 501}, {1, now + 1001}} {
		s := mustLease(t, l, 4)
		if s.WorkerID() != want.id || s.First() < want.start || s.First() > max(want.start, time.Now().Unix()) {
			t.Errorf("worker ID %d from %d, want %d from %d", s.WorkerID(), s.First(), want.id, want.start)
		}
	}
}

// TestLeaseLost lets the holder's held key expire: the old holder's
// renewals, whether they find a new holder's value or no key at all,
// extend nothing and restart no TTL, and its Release gives nothing back.
func TestLeaseLost(t *testing.T) {
	f := newFleet(t)
	for _, tt := range []struct {
		name     string
		takeOver bool // another process takes the ID before the old holder renews
	}{
		{"taken over", true},
		{"expired", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := f
			f.prefix = "{" + t.Name() + "}:"
			testLeaseLost(t, f, tt.takeOver)
		})
	}
}

func testLeaseLost(t *testing.T, f fleet, takeOver bool) {
	l := f.leased(t, Config{})
	ctx := testContext(t)
	a := mustLease(t, l, 1)
	store := f.storeOf(t, l, a)
	reserved := a.Reserved()
	f.expire(t, 1)
	var b *lease
	if takeOver {
		b = mustLease(t, l, 1)
		if b.First() <= reserved {
			t.Fatalf("new holder starts at %d, want above the old reservation %d", b.First(), reserved)
		}
	}
	keep, keepHeld := f.reserved(t, 1), f.held(t, 1)

	if err := store.Extend(ctx, keep+1000); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("the old holder's Extend after its key expired: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if got, h := f.reserved(t, 1), f.held(t, 1); got != keep || h != keepHeld {
		t.Errorf("after the old holder's Extend, reserved:1 holds %d and held:1 %q, want %d and %q as the loss left them", got, h, keep, keepHeld)
	}
	if err := a.RenewNow(ctx); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Fatalf("the old holder's renewal: %v, want %q", err, uidgen.ErrLeaseLost) // its renewer goes on
	}
	if err := a.Err(); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("Err after the loss: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	select {
	case <-a.Done(): // the renewer ends by itself
	case <-ctx.Done():
		t.Fatal("the old holder's renewer still runs after the loss")
	}
	if a.Reserved() != reserved {
		t.Errorf("Reserved %d after the loss, want %d as before", a.Reserved(), reserved)
	}
	if got := f.reserved(t, 1); got != keep {
		t.Errorf("reserved:1 holds %d after the old holder's renewals, want %d as the loss left it", got, keep)
	}
	if err := a.Wait(ctx, reserved+1); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("Wait past the reservation: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if err := a.Release(ctx, reserved); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("Release of a lost lease: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if err := store.Free(ctx, reserved); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("the old holder's freeScript: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if got, h := f.reserved(t, 1), f.held(t, 1); got != keep || h != keepHeld {
		t.Errorf("after the old holder's Release, reserved:1 holds %d and held:1 %q, want %d and %q", got, h, keep, keepHeld)
	}
	if takeOver {
		renewNow(t, b)
		return
	}
	if c := mustLease(t, l, 1); c.First() <= reserved {
		t.Errorf("the next holder starts at %d, want above the old reservation %d", c.First(), reserved)
	}
}

// TestReservationNeverFalls renews at a pace far below the last renewal's:
// reserved:ID never falls below what the holder may use.
func TestReservationNeverFalls(t *testing.T) {
	f := newFleet(t)
	l := f.leased(t, Config{})
	s := mustLease(t, l, 1)
	store := f.storeOf(t, l, s)
	ctx := testContext(t)
	high := s.Reserved() + 10_000
	if err := store.Extend(ctx, high); err != nil {
		t.Fatal(err)
	}
	if err := store.Extend(ctx, s.Reserved()); err != nil {
		t.Fatal(err)
	}
	if got := f.reserved(t, 1); got != high {
		t.Errorf("reserved:1 holds %d after a lower renewal, want %d: a renewal whose answer was lost may have let the holder use it", got, high)
	}
}

// TestLeaseRelease: Release records the last second used, never below
// First()-1, deletes held:ID so the ID is free at once, and a renewal of
// the released holder still on its way extends nothing.
func TestLeaseRelease(t *testing.T) {
	f := newFleet(t)
	f.reserve(t, 1, time.Now().Unix()-100)
	l := f.leased(t, Config{})
	ctx := testContext(t)
	a := mustLease(t, l, 1)
	store := f.storeOf(t, l, a)
	if err := a.Release(ctx, 0); err != nil { // a holder that used nothing
		t.Fatal(err)
	}
	if got := f.reserved(t, 1); got != a.First()-1 {
		t.Errorf("reserved:1 holds %d after Release(0), want First()-1 = %d", got, a.First()-1)
	}
	if v := f.held(t, 1); v != "" {
		t.Errorf("held:1 holds %s after Release, want it deleted", v)
	}
	if err := store.Extend(ctx, a.First()+1000); !errors.Is(err, uidgen.ErrLeaseLost) {
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
// the clock, so it goes on that long without Redis; and its renewal
// restarts the held key's TTL.
func TestLeaseHorizon(t *testing.T) {
	f := newFleet(t)
	const horizon, ttl = 90 * time.Second, 3 * time.Second
	s := mustLease(t, f.leased(t, Config{LeaseHorizon: horizon, LeaseTTL: ttl}), 1)
	ctx := testContext(t)
	// Let the key's TTL run down measurably, so that the renewal's restart
	// shows.
	if err := f.c.PExpire(ctx, heldKey(f.prefix, 1), ttl/3).Err(); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Unix() // the renewal reserves from its own time, not the check's
	renewNow(t, s)
	if ahead := s.Reserved() - before; ahead < int64(horizon/time.Second) {
		t.Errorf("reserved %d s ahead at idle, want the horizon, %v", ahead, horizon)
	}
	if got := f.reserved(t, 1); got != s.Reserved() {
		t.Errorf("reserved:1 holds %d, want the lease's Reserved() %d", got, s.Reserved())
	}
	if left, err := f.c.PTTL(ctx, heldKey(f.prefix, 1)).Result(); err != nil || left <= ttl/3 || left > ttl {
		t.Errorf("held:1 expires in %v (%v) after the renewal, want the TTL restarted, %v", left, err, ttl)
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

	// A waiter that has read the fleet twice has found it full and is
	// polling: the release comes while it waits.
	var reads atomic.Int64
	polling := make(chan struct{})
	l.now = func() time.Time {
		if reads.Add(1) == 2 {
			close(polling)
		}
		return time.Now()
	}
	got := make(chan *lease, 1)
	go func() {
		s, err := l.LeaseWorkerID(testContext(t), 1)
		if err != nil {
			t.Errorf("LeaseWorkerID while the ID is released: %v", err)
			got <- nil
			return
		}
		got <- s.(*lease)
	}()
	<-polling
	if err := a.Release(testContext(t), a.First()); err != nil {
		t.Fatal(err)
	}
	b := <-got
	if b == nil {
		t.FailNow()
	}
	defer b.Release(context.Background(), b.First()-1)
	if b.WorkerID() != 1 || b.First() <= a.First() {
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

// jitter delays each takeScript by a random time up to max before the
// client sends it: it widens the window between whatever the leaser read
// before the take and the take itself, so that TestLeaseConcurrent sees a
// take that trusts an earlier read.
type jitter struct{ max time.Duration }

func (j jitter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (j jitter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (j jitter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		// takeScript is the only script of three keys.
		if args := cmd.Args(); len(args) > 2 && (cmd.Name() == "evalsha" || cmd.Name() == "eval") && fmt.Sprint(args[2]) == "3" {
			time.Sleep(rand.N(j.max))
		}
		return next(ctx, cmd)
	}
}

// TestLeaseConcurrent has goroutines lease, use and release the same few
// IDs at once: no ID is held twice at once, and every holder starts above
// every second its ID's earlier holders used.
func TestLeaseConcurrent(t *testing.T) {
	goroutines, rounds := 12, sizetest.Pick(12, 6)
	const maxID = 3
	f := newFleet(t)
	c := f.s.Client(t)
	c.AddHook(jitter{max: 5 * time.Millisecond})
	l := f.leased(t, Config{Client: c})
	l.poll = 5 * time.Millisecond
	// The first failure ends the others' waits for a free ID, which its
	// goroutine may never give back; it is the first error sent.
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()

	var mu sync.Mutex
	holder := map[int64]int{}     // worker ID -> goroutine holding it
	lastUsed := map[int64]int64{} // worker ID -> the last second its holders used
	errs := make(chan error, goroutines)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			<-gate
			err := func() error {
				for r := range rounds {
					got, err := l.LeaseWorkerID(ctx, maxID)
					if err != nil {
						return err
					}
					id, first := got.WorkerID(), got.First()
					last := first + int64(r%3)
					if err := got.Wait(ctx, last); err != nil {
						return err
					}
					mu.Lock()
					other, held := holder[id]
					holder[id] = g
					before, used := lastUsed[id]
					lastUsed[id] = max(before, last)
					delete(holder, id)
					mu.Unlock()
					if held {
						return fmt.Errorf("worker ID %d leased to goroutines %d and %d at once", id, other, g)
					}
					if used && first <= before {
						return fmt.Errorf("worker ID %d: a holder starts at second %d, which an earlier holder used (to %d)", id, first, before)
					}
					if err := got.Release(ctx, last); err != nil {
						return err
					}
				}
				return nil
			}()
			errs <- err
			if err != nil {
				cancel()
			}
		})
	}
	close(gate)
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

// TestBadKey: a value under the prefix that this package does not write
// fails LeaseWorkerID and List with ErrBadKey naming the key, at once: no
// retry makes it right.
// TestLeaseRange: leasetest.Range on a fleet of its own; reserved:4 keeps
// its reservation.
func TestLeaseRange(t *testing.T) {
	f := newFleet(t)
	var four int64
	leasetest.Range(t, testContext(t), ErrNoFreeID, "redisworker: lease a worker ID under "+f.prefix, func(r uidgen.WorkerIDRange) uidgen.Leaser {
		if r.Min == 5 {
			four = f.reserved(t, 4)
		}
		l := f.leased(t, Config{WorkerIDs: r})
		l.poll = 5 * time.Millisecond
		return l
	})
	if got := f.reserved(t, 4); got != four {
		t.Errorf("reserved:4, outside 5-8: %d after the leases, was %d", got, four)
	}
}

// TestLeaseRangeErrors: leasetest.RangeErrors on a fleet of its own, which
// holds no key after it.
func TestLeaseRangeErrors(t *testing.T) {
	f := newFleet(t)
	leasetest.RangeErrors(t, testContext(t), "redisworker", "redisworker: lease a worker ID under "+f.prefix,
		func(r uidgen.WorkerIDRange) (uidgen.Leaser, error) {
			return NewLeased(Config{Client: f.c, Prefix: f.prefix, WorkerIDs: r})
		})
	if n, err := f.c.DBSize(testContext(t)).Result(); err != nil || n != 0 {
		t.Errorf("%d keys after a lease of a range too wide (%v), want none", n, err)
	}
}

func TestBadKey(t *testing.T) {
	f := newFleet(t)
	for _, tt := range []struct {
		name  string
		write func(ctx context.Context, c redis.UniversalClient, prefix string) error
		text  string
	}{
		{"reservation not a second", func(ctx context.Context, c redis.UniversalClient, p string) error {
			c.ZAdd(ctx, idsKey(p), redis.Z{Score: 1, Member: 1})
			return c.Set(ctx, reservedKey(p, 1), "soon", 0).Err()
		}, `reserved:1 holds "soon"`},
		{"held key not JSON", func(ctx context.Context, c redis.UniversalClient, p string) error {
			c.ZAdd(ctx, idsKey(p), redis.Z{Score: 1, Member: 1})
			c.Set(ctx, reservedKey(p, 1), 1, 0)
			return c.Set(ctx, heldKey(p, 1), "pid 4242", time.Minute).Err()
		}, `held:1 holds "pid 4242"`},
		{"ID not a number", func(ctx context.Context, c redis.UniversalClient, p string) error {
			return c.ZAdd(ctx, idsKey(p), redis.Z{Score: 0, Member: "x"}).Err()
		}, `ids holds member "x"`},
		{"ID zero", func(ctx context.Context, c redis.UniversalClient, p string) error {
			return c.ZAdd(ctx, idsKey(p), redis.Z{Score: 0, Member: 0}).Err()
		}, `ids holds member "0"`},
		{"ID set of another type", func(ctx context.Context, c redis.UniversalClient, p string) error {
			return c.Set(ctx, idsKey(p), "1,2,3", 0).Err()
		}, "WRONGTYPE"},
		{"reservation of another type", func(ctx context.Context, c redis.UniversalClient, p string) error {
			c.ZAdd(ctx, idsKey(p), redis.Z{Score: 1, Member: 1})
			return c.HSet(ctx, reservedKey(p, 1), "second", 1).Err()
		}, "WRONGTYPE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := f
			f.prefix = "{" + t.Name() + "}:"
			ctx := testContext(t)
			if err := tt.write(ctx, f.c, f.prefix); err != nil {
				t.Fatal(err)
			}
			_, err := f.leased(t, Config{}).LeaseWorkerID(ctx, 7)
			if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("LeaseWorkerID: %v, want %q naming %q", err, ErrBadKey, tt.text)
			}
			if _, err := List(ctx, Config{Client: f.c, Prefix: f.prefix}); !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("List: %v, want %q naming %q", err, ErrBadKey, tt.text)
			}
		})
	}
}

// TestUnreachable: a server that does not answer fails LeaseWorkerID when
// its context ends, with the last failure Redis gave, which names the
// address.
func TestUnreachable(t *testing.T) {
	// Each request fails at once, so that several fail before ctx ends.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true, MaxRetries: -1, DialerRetries: 1})
	defer c.Close()
	l, err := NewLeased(Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	l.poll = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	_, err = l.LeaseWorkerID(ctx, 7)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrNoFreeID) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("LeaseWorkerID from a server that does not answer: %v, want %q naming the address", err, context.DeadlineExceeded)
	}
}

// TestReplicas: with Config.Replicas, a take counts only once that many
// replicas acknowledged it. With none connected the take waits for them
// until its context ends, then fails with ErrReplicas naming the count and
// gives its ID back; with one connected, takes and renewals go through.
func TestReplicas(t *testing.T) {
	t.Run("none connected", func(t *testing.T) {
		f := newFleet(t)
		const wait = 100 * time.Millisecond
		l := f.leased(t, Config{Replicas: 1, ReplicaTimeout: wait})
		l.poll = 50 * time.Millisecond
		ctx, cancel := context.WithTimeout(testContext(t), time.Second)
		defer cancel()
		_, err := l.LeaseWorkerID(ctx, 7)
		if !errors.Is(err, ErrReplicas) || !errors.Is(err, context.DeadlineExceeded) ||
			!strings.Contains(err.Error(), "0 of 1 replicas within 100ms") {
			t.Fatalf("LeaseWorkerID with no replica connected: %v, want %q naming 0 of 1, and %q",
				err, ErrReplicas, context.DeadlineExceeded)
		}
		// The take the replicas never acknowledged gives its ID back and
		// keeps its reservation, which no later holder may start below.
		rows, err := List(testContext(t), Config{Client: f.c, Prefix: f.prefix})
		if err != nil || len(rows) != 1 || rows[0].ID != 1 || rows[0].Held || rows[0].LastReserved == 0 {
			t.Errorf("List after the failed take: %+v, %v; want ID 1 free, its reservation kept", rows, err)
		}
	})
	t.Run("one connected", func(t *testing.T) {
		f := newFleet(t, "repl-diskless-sync-delay 0") // the replica syncs at once
		replica := redistest.Start(t, "replicaof 127.0.0.1 "+strconv.Itoa(f.s.Port()))
		waitReplicas(t, f.c, 1)
		l := f.leased(t, Config{Replicas: 1})
		s := mustLease(t, l, 7)
		renewNow(t, s)
		got, err := replica.Client(t).Get(testContext(t), reservedKey(f.prefix, s.WorkerID())).Result()
		if err != nil || got != strconv.FormatInt(s.Reserved(), 10) {
			t.Errorf("the replica's reserved:%d holds %q (%v), want the renewed reservation %d", s.WorkerID(), got, err, s.Reserved())
		}
	})
}

// waitReplicas waits until n replicas are connected to the server of c.
func waitReplicas(t testing.TB, c redis.UniversalClient, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a full sync, on a loaded machine
	defer cancel()
	want := "connected_slaves:" + strconv.Itoa(n)
	for {
		info, err := c.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, want+"\r\n") && strings.Contains(info, "state=online") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d replicas not connected within 30s: %q, %v", n, info, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
