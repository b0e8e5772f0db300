package leasetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/leaktest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// Store is what Run needs of a lease store that only the store's own
// package knows. A store's tests implement it over a deployment of their
// own: a database, an etcd cluster, a Redis server.
type Store interface {
	// Fleet returns an empty fleet on the store, in a table or under a
	// key prefix of t's own.
	Fleet(t *testing.T) Fleet
}

// Fleet is one fleet of a Store: where its Leasers keep their leases, and
// what the tests change there by hand, as a crashed holder would.
type Fleet interface {
	// Leased returns the package's Leaser on the fleet, from its NewLeased
	// and with NewLeased's error (see Tune), with its clock, its poll and
	// its renewals' period from o.
	Leased(t testing.TB, o Options) (uidgen.Leaser, error)

	// Op is how LeaseWorkerID's errors on the fleet begin, the package's
	// name first: "worker: lease a worker ID from WORKER_NODE_1a2b".
	Op() string

	// Expire ends the lease on id, held, by the store's clock, as its TTL
	// running out without a renewal would: id is free, its reservation
	// kept.
	Expire(t testing.TB, id int64)

	// Reserved returns the last second the fleet records as reserved for
	// id, -1 where it records none.
	Reserved(t testing.TB, id int64) int64

	// Reserve records sec as id's reservation, as a holder that died
	// having reserved up to sec leaves it. Only for an id leased before
	// and free now (released or expired).
	Reserve(t testing.TB, id, sec int64)

	// Store returns the leasing.Store of l, held now: with it the test
	// sends what a renewal or a release of l still on its way would.
	Store(t testing.TB, l uidgen.Lease) leasing.Store

	// List is the package's List on the fleet: its worker IDs, by ID.
	List(ctx context.Context) ([]uidgen.LeaseRow, error)
}

// ClockedFleet is a Fleet whose holders of an ID never leased start by the
// store's clock, not by this process's (which Options.Now does not
// change): a SQL database's.
type ClockedFleet interface {
	Fleet
	// Now returns the store's clock in Unix seconds.
	Now(t testing.TB) int64
}

// now returns the Unix second at which a holder of an ID never leased
// starts on f.
func now(t testing.TB, f Fleet) int64 {
	if c, ok := f.(ClockedFleet); ok {
		return c.Now(t)
	}
	return time.Now().Unix()
}

// Options are what a test asks of Fleet.Leased.
type Options struct {
	TTL, Horizon time.Duration        // zero: the package's defaults
	WorkerIDs    uidgen.WorkerIDRange // zero: [1, maxWorkerID]

	// Set by Run always: the knobs of a Leased that only its package's
	// tests reach.
	Now   func() time.Time // the Leased's clock
	Poll  time.Duration    // between reads of the fleet while every ID is held
	Every time.Duration    // between renewals while the holder asks for none
}

// Tune returns what Fleet.Leased does of l and err, what the package's
// NewLeased returned: nil and err where NewLeased failed, else l after
// tune, which sets the knobs of o that only the package reaches.
func Tune[L uidgen.Leaser](l L, err error, tune func(L)) (uidgen.Leaser, error) {
	if err != nil {
		return nil, err
	}
	tune(l)
	return l, nil
}

// withKnobs returns o with the knobs a test did not set: the real clock,
// a poll of 5 ms, since the tests wait for IDs to come free and not for
// a second's poll, and renewals every hour, so that each renewal is the
// test's own (Need, Wait, RenewNow).
func withKnobs(o Options) Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Poll = cmp.Or(o.Poll, 5*time.Millisecond)
	o.Every = cmp.Or(o.Every, time.Hour)
	return o
}

// lease is what the tests ask of a store's lease: every store's is a
// leasing.Lease.
type lease interface {
	uidgen.Lease
	RenewNow(ctx context.Context) error
	Done() <-chan struct{}
}

// Run tests the lease contract every store keeps, as the package doc of
// internal/leasing states it and docs/design.md proves it, on fleets of s:
// one subtest a behaviour, each on a fleet of its own.
func Run(t *testing.T, s Store) {
	for _, tt := range []struct {
		name string
		test func(t *testing.T, s Store, f Fleet)
	}{
		{"LowestFreeFirst", testLowestFreeFirst},
		{"ColdFirst", testColdFirst},
		{"StartsAboveReservation", testStartsAboveReservation},
		{"ExpiryByStoreClock", testExpiryByStoreClock},
		{"Release", testRelease},
		{"Lost", testLost},
		{"ReservationNeverFalls", testReservationNeverFalls},
		{"Horizon", testHorizon},
		{"Pace", testPace},
		{"StartBurst", testStartBurst},
		{"NoFreeID", testNoFreeID},
		{"NoFreeIDNoDeadline", testNoFreeIDNoDeadline},
		{"Concurrent", testConcurrent},
		{"Range", testRange},
		{"RangeErrors", testRangeErrors},
		{"Generators", testGenerators},
		{"Metrics", testMetrics},
		{"List", testList},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.test(t, s, s.Fleet(t)) })
	}
}

// Context returns a context that ends with the test or after a minute,
// whichever is first: what a store's tests wait under.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// leased returns f's Leaser of o, withKnobs.
func leased(t testing.TB, f Fleet, o Options) uidgen.Leaser {
	t.Helper()
	l, err := f.Leased(t, withKnobs(o))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// mustLease leases an ID up to maxID from l, released when the test ends
// unless the test released it.
func mustLease(t testing.TB, l uidgen.Leaser, maxID int64) lease {
	t.Helper()
	return Must[lease](t, Context(t), l, maxID)
}

// renewNow makes s renew once and fails t if the renewal did.
func renewNow(t testing.TB, s lease) {
	t.Helper()
	if err := s.RenewNow(Context(t)); err != nil {
		t.Fatalf("renewal: %v", err)
	}
}

// clock is a clock that moves only when the test moves it, in seconds.
type clock struct{ sec atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.sec.Store(time.Now().Unix())
	return c
}

func (c *clock) now() time.Time { return time.Unix(c.sec.Load(), 0) }

// pkg returns the package's name, as f's errors begin with it.
func pkg(f Fleet) string {
	name, _, _ := strings.Cut(f.Op(), ": ")
	return name
}

// testLowestFreeFirst: IDs are lent lowest first; a released ID, free
// again, comes back before a new one, to a holder that starts above what
// the last one used; the fleet records what each holder reserves.
func testLowestFreeFirst(t *testing.T, _ Store, f Fleet) {
	l := leased(t, f, Options{})
	var held []lease
	for want := int64(1); want <= 3; want++ {
		s := mustLease(t, l, 7)
		if s.WorkerID() != want {
			t.Fatalf("lease %d: worker ID %d, want %d", want, s.WorkerID(), want)
		}
		held = append(held, s)
	}
	if got := f.Reserved(t, 2); got != held[1].Reserved() {
		t.Errorf("worker ID 2 recorded as reserved to %d, want the lease's Reserved() %d", got, held[1].Reserved())
	}
	lastUsed := held[1].First() + 3
	if err := held[1].Release(Context(t), lastUsed); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if got := f.Reserved(t, 2); got != lastUsed {
		t.Errorf("worker ID 2 recorded as reserved to %d after Release, want the last second used, %d", got, lastUsed)
	}
	if s := mustLease(t, l, 7); s.WorkerID() != 2 || s.First() <= lastUsed {
		t.Errorf("after releasing 2: worker ID %d from %d, want 2 from above %d", s.WorkerID(), s.First(), lastUsed)
	}
	if s := mustLease(t, l, 7); s.WorkerID() != 4 {
		t.Errorf("next: worker ID %d, want 4", s.WorkerID())
	}
}

// testColdFirst: a holder that died leaves its ID reserved up to a horizon
// ahead. The next holder takes the lowest free ID whose reservation has
// passed or passes within leasing.ColdSlack, as a clean release's does,
// then a new ID, both from the clock; only when every free ID is reserved
// ahead, the one whose reservation ends soonest, above it.
func testColdFirst(t *testing.T, _ Store, f Fleet) {
	l := leased(t, f, Options{})
	for range 3 {
		mustLease(t, l, 7) // 1, 2 and 3
	}
	at := now(t, f)
	for id, reserved := range map[int64]int64{1: at + 600, 2: at + leasing.ColdSlack/2, 3: at + 300} {
		f.Expire(t, id) // as if its holder died
		f.Reserve(t, id, reserved)
	}
	for _, tt := range []struct {
		maxID, want int64
		from        int64 // the earliest second the holder may start at
	}{
		{7, 2, at + leasing.ColdSlack/2 + 1}, // cold, the lowest, above its reservation
		{7, 4, at},                           // a new ID before a hot one
		{4, 3, at + 301},                     // only hot ones free: the soonest, above it
		{4, 1, at + 601},
	} {
		s := mustLease(t, l, tt.maxID)
		if to := max(tt.from, now(t, f)); s.WorkerID() != tt.want || s.First() < tt.from || s.First() > to {
			t.Errorf("up to %d: worker ID %d from %d, want %d from %d to %d (the store's now was %d)",
				tt.maxID, s.WorkerID(), s.First(), tt.want, tt.from, to, at)
		}
	}
}

// testStartsAboveReservation: a takeover reads the reservation the ID's
// last holder left and starts above it, or at the clock when that is
// later; the fleet records the new holder's reservation.
func testStartsAboveReservation(t *testing.T, _ Store, f Fleet) {
	l := leased(t, f, Options{})
	id := mustLease(t, l, 1).WorkerID()
	for _, tt := range []struct {
		name   string
		offset int64 // the reservation left, from the store's now
	}{
		{"reserved ahead", 1000},
		{"reserved behind", -1000},
	} {
		f.Expire(t, id)
		before := now(t, f)
		reserved := before + tt.offset
		f.Reserve(t, id, reserved)
		s := mustLease(t, l, 1)
		after := now(t, f)
		if s.WorkerID() != id {
			t.Fatalf("%s: worker ID %d, want %d", tt.name, s.WorkerID(), id)
		}
		if lo, hi := max(before, reserved+1), max(after, reserved+1); s.First() < lo || s.First() > hi {
			t.Errorf("%s: First %d, want max(the store's now, %d + 1) in [%d, %d]", tt.name, s.First(), reserved, lo, hi)
		}
		if got := f.Reserved(t, id); s.Reserved() < s.First() || got != s.Reserved() {
			t.Errorf("%s: Reserved %d, recorded %d; want them equal and at least First %d", tt.name, s.Reserved(), got, s.First())
		}
	}
}

// testExpiryByStoreClock: clients whose clocks run hours ahead or behind
// neither take a live lease nor miss an expired one, since the store's
// clock alone says which leases expired.
func testExpiryByStoreClock(t *testing.T, _ Store, f Fleet) {
	off := func(d time.Duration) func() time.Time { return func() time.Time { return time.Now().Add(d) } }
	a := mustLease(t, leased(t, f, Options{}), 2)
	if b := mustLease(t, leased(t, f, Options{Now: off(2 * time.Hour)}), 2); b.WorkerID() == a.WorkerID() {
		t.Fatalf("a client two hours ahead took worker ID %d while its lease was live", a.WorkerID())
	}
	f.Expire(t, a.WorkerID())
	c := mustLease(t, leased(t, f, Options{Now: off(-2 * time.Hour)}), 2) // the other ID is held
	if c.WorkerID() != a.WorkerID() || c.First() <= a.Reserved() {
		t.Errorf("a client two hours behind leased worker ID %d from %d, want %d, whose lease expired, from above %d",
			c.WorkerID(), c.First(), a.WorkerID(), a.Reserved())
	}
}

// testRelease: Release records the last second used, once; the ID is free
// at once, to a holder that starts above that second, or, where a holder
// used nothing, above what the holders before it used. A renewal of the
// released holder still on its way extends nothing, and its renewer ends.
func testRelease(t *testing.T, s Store, f Fleet) {
	released := uidgen.ErrReleased
	l := leased(t, f, Options{})
	ctx := Context(t)
	a := mustLease(t, l, 1)
	store := f.Store(t, a)
	lastUsed := a.First() + 100
	for range 2 {
		if err := a.Release(ctx, lastUsed); err != nil {
			t.Fatalf("Release: %v", err)
		}
	}
	if got := f.Reserved(t, 1); got != lastUsed {
		t.Errorf("recorded as reserved to %d after Release, want the last second used, %d", got, lastUsed)
	}
	if err := a.Wait(ctx, a.Reserved()+1); !errors.Is(err, released) {
		t.Errorf("Wait after Release: %v, want %q", err, released)
	}
	if err := store.Extend(ctx, a.Reserved()+1000); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("a renewal after Release: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	select {
	case <-a.Done():
	default:
		t.Error("the released lease's renewer still runs")
	}

	// Free at once: well within the default TTL that would free it
	// otherwise.
	quick, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b := Must[lease](t, quick, l, 1)
	if b.First() != lastUsed+1 {
		t.Fatalf("after Release: worker ID %d from %d, want 1 from %d", b.WorkerID(), b.First(), lastUsed+1)
	}
	if err := b.Release(ctx, 0); err != nil { // used nothing
		t.Fatal(err)
	}
	if c := mustLease(t, l, 1); c.First() != lastUsed+1 {
		t.Errorf("after a holder that used nothing: First %d, want %d", c.First(), lastUsed+1)
	}
}

// testLost: once another process took an expired lease over, the old
// holder's renewals and release, whether its renewer's or still on their
// way, find the lease lost and change nothing the new holder keeps; its
// reservation stops growing and its renewer ends. The new holder starts
// above the old reservation and renews.
func testLost(t *testing.T, _ Store, f Fleet) {
	ctx := Context(t)
	a := mustLease(t, leased(t, f, Options{}), 1)
	store := f.Store(t, a)
	reserved := a.Reserved()
	f.Expire(t, 1)
	b := mustLease(t, leased(t, f, Options{}), 1)
	if b.WorkerID() != 1 || b.First() <= reserved {
		t.Fatalf("takeover: worker ID %d from %d, want 1 from above %d", b.WorkerID(), b.First(), reserved)
	}
	keep := f.Reserved(t, 1)

	// lost checks what the old holder's call returned, prefixed by the
	// package unless it is the store's own, and that it changed nothing.
	lost := func(what string, err error, prefixed bool) {
		t.Helper()
		if !errors.Is(err, uidgen.ErrLeaseLost) || prefixed && !strings.HasPrefix(err.Error(), pkg(f)+": ") {
			t.Errorf("the old holder's %s after the takeover: %v, want an error wrapping %q", what, err, uidgen.ErrLeaseLost)
		}
		if got := f.Reserved(t, 1); got != keep {
			t.Errorf("after the old holder's %s, recorded as reserved to %d, want the new holder's %d", what, got, keep)
		}
	}
	lost("renewal on its way", store.Extend(ctx, keep+1000), false)
	lost("renewal", a.RenewNow(ctx), false)
	lost("Err", a.Err(), true)
	select {
	case <-a.Done(): // the renewer ends by itself
	case <-ctx.Done():
		t.Fatal("the old holder's renewer still runs after the loss")
	}
	a.Need(reserved + 100)
	if a.Reserved() != reserved {
		t.Errorf("Reserved %d after the loss, want %d as before", a.Reserved(), reserved)
	}
	lost("Wait", a.Wait(ctx, reserved+1), true)
	lost("Release", a.Release(ctx, reserved), true)
	lost("release on its way", store.Free(ctx, reserved), true)
	renewNow(t, b)
	if err := b.Wait(ctx, b.Reserved()+5); err != nil {
		t.Errorf("the new holder's Wait: %v", err)
	}
}

// testReservationNeverFalls: a renewal that asks for less than an earlier
// one leaves the recorded reservation where it was, since the earlier
// one's answer may have been lost after the holder used what it reserved.
func testReservationNeverFalls(t *testing.T, _ Store, f Fleet) {
	s := mustLease(t, leased(t, f, Options{}), 1)
	store := f.Store(t, s)
	ctx := Context(t)
	high := s.Reserved() + 10_000
	if err := store.Extend(ctx, high); err != nil {
		t.Fatal(err)
	}
	if err := store.Extend(ctx, s.Reserved()); err != nil {
		t.Fatal(err)
	}
	if got := f.Reserved(t, 1); got != high {
		t.Errorf("recorded as reserved to %d after a lower renewal, want %d", got, high)
	}
}

// testHorizon: a lease reserves the horizon and a renewal's period (a
// third of the TTL; on a SQLite file a second, leasing.NewFileTiming)
// ahead of the clock from the start, and every renewal at idle keeps that
// much reserved: a holder cut off from the store right after a renewal
// goes on for the whole horizon, and right before the next one for the
// horizon still.
func testHorizon(t *testing.T, _ Store, f Fleet) {
	const ttl, horizon = 6 * time.Second, 90 * time.Second
	c := newClock()
	s := mustLease(t, leased(t, f, Options{TTL: ttl, Horizon: horizon, Now: c.now}), 7)
	ahead, most := int64((horizon+min(ttl/3, leasing.FileEvery))/time.Second), int64((horizon+ttl/3)/time.Second)
	if got := s.Reserved() - max(s.First(), c.sec.Load()); got < ahead || got > most {
		t.Fatalf("first reservation to %d: %d s ahead, want %d to %d", s.Reserved(), got, ahead, most)
	}
	for range 3 {
		c.sec.Add(int64(ttl / 3 / time.Second)) // a renewal's period, used at idle
		s.Need(c.sec.Load())
		renewNow(t, s)
		if left := s.Reserved() - c.sec.Load(); left < ahead {
			t.Fatalf("after a renewal at idle: %d s reserved ahead of the clock, want %d", left, ahead)
		}
	}
	if got := f.Reserved(t, s.WorkerID()); got != s.Reserved() {
		t.Errorf("recorded as reserved to %d, want the holder's %d", got, s.Reserved())
	}
}

// testPace: Need makes the renewer reserve ahead by the horizon's worth of
// seconds at the pace they are asked for, so a holder borrowing seconds
// flat out finds them reserved before it asks; a renewal at a slower pace
// takes back nothing; and renewals in quick succession each succeed, so
// that a failed one means only that the lease is lost.
func testPace(t *testing.T, _ Store, f Fleet) {
	// Reservations run the horizon and a third of the TTL ahead: 3 s.
	c := newClock()
	s := mustLease(t, leased(t, f, Options{TTL: 3 * time.Second, Horizon: 2 * time.Second, Now: c.now}), 7)
	if want := max(s.First(), c.sec.Load()) + 3; s.Reserved() != want {
		t.Fatalf("first reservation to %d, want %d: the horizon and a third of the TTL ahead", s.Reserved(), want)
	}
	ctx := Context(t)

	// 100 seconds of IDs past the one it starts in, in one second of the
	// clock: need grows by 101, one of which whole seconds may count more
	// than were asked for.
	c.sec.Add(1)
	need := s.First() + 101
	s.Need(need)
	if err := s.Wait(ctx, need); err != nil {
		t.Fatal(err)
	}
	if want := need + 300; s.Reserved() != want {
		t.Errorf("at 100 s/s, 3 s ahead: reserved to %d, want %d", s.Reserved(), want)
	}

	reserved := s.Reserved()
	renewNow(t, s)
	if got := f.Reserved(t, s.WorkerID()); s.Reserved() != reserved || got != reserved {
		t.Errorf("after a slower renewal: Reserved %d, recorded %d; want %d, as before", s.Reserved(), got, reserved)
	}
	store := f.Store(t, s)
	for i := range 20 {
		if err := store.Extend(ctx, reserved); err != nil {
			t.Fatalf("renewal %d in quick succession: %v", i, err)
		}
	}
}

// testStartBurst: a holder that asks for many seconds at once, as a cached
// generator filling its ring at start-up does, gets them reserved without
// the pace of that instant carrying the reservation hours ahead.
func testStartBurst(t *testing.T, _ Store, f Fleet) {
	s := mustLease(t, leased(t, f, Options{TTL: 2 * time.Second, Horizon: 2 * time.Second}), 7)
	need := s.First() + 8 // the default ring: 8 seconds in a few milliseconds
	s.Need(need)
	if err := s.Wait(Context(t), need); err != nil {
		t.Fatal(err)
	}
	// 7 seconds (need past First, less one) over a third of the 2 s TTL is
	// 10.5 s/s, and the 2 s horizon and a third of the TTL of them are 28 s
	// ahead, 29 once rounded up in floating point.
	if ahead := s.Reserved() - need; ahead > 29 {
		t.Fatalf("reserved %d s past the %d asked for, want at most 29", ahead, need)
	}
}

// testNoFreeIDNoDeadline: under a context with no deadline, a range that
// live holders keep full fails with ErrNoFreeID after the waiter's lease
// TTL, not never: by then every ID a dead holder left would have expired.
func testNoFreeIDNoDeadline(t *testing.T, s Store, f Fleet) {
	const ttl = 2 * time.Second // within every store's limits
	noFreeID := uidgen.ErrNoFreeID
	for range 2 {
		mustLease(t, leased(t, f, Options{TTL: time.Hour}), 2) // held: no renewal is due for an hour
	}
	ctx, cancel := context.WithCancel(t.Context()) // no deadline
	defer cancel()
	// A LeaseWorkerID that never gives up fails the test, rather than hang
	// until go test's own timeout.
	watchdog := time.AfterFunc(ttl+time.Minute, cancel)
	defer watchdog.Stop()
	start := time.Now()
	l, err := leased(t, f, Options{TTL: ttl}).LeaseWorkerID(ctx, 2)
	took := time.Since(start)
	if l != nil {
		l.Release(context.Background(), l.First()-1)
	}
	if !errors.Is(err, noFreeID) || errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), f.Op()+": ") ||
		!strings.Contains(err.Error(), fmt.Sprintf("none came free within the lease TTL (%v)", ttl)) {
		t.Fatalf("LeaseWorkerID of a full range with no deadline: %v, want %q alone, naming the TTL", err, noFreeID)
	}
	if took < ttl {
		t.Errorf("gave up after %v, before the lease TTL of %v", took, ttl)
	}
}

// testNoFreeID: with every ID held, LeaseWorkerID waits for one to come
// free, and fails naming the range once ctx ends; so it does when ctx
// ends as it reads the fleet again, since the read cut off says nothing
// of the fleet and the one before found every ID held. An ID released
// while it waits is taken, from above its last second used.
func testNoFreeID(t *testing.T, s Store, f Fleet) {
	noFreeID := uidgen.ErrNoFreeID
	a := mustLease(t, leased(t, f, Options{}), 3)
	mustLease(t, leased(t, f, Options{}), 3)
	mustLease(t, leased(t, f, Options{}), 3)

	// A leaser that reads the fleet once and waits: the clock counts the
	// calls up to the start of that read, each later read adding one.
	var calls atomic.Int64
	counted := func() time.Time { calls.Add(1); return time.Now() }
	// Long enough for a read of the fleet under -race on a loaded machine.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	_, err := leased(t, f, Options{Now: counted, Poll: time.Hour}).LeaseWorkerID(ctx, 3)
	if !errors.Is(err, noFreeID) || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.HasPrefix(err.Error(), f.Op()+": ") || !strings.Contains(err.Error(), "all 3 IDs from 1 to 3 are held") {
		t.Fatalf("LeaseWorkerID with every ID held: %v, want %q and %q, starting %q and naming 1 to 3",
			err, noFreeID, context.DeadlineExceeded, f.Op())
	}
	second := calls.Load() + 1 // the call that starts the second read

	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	calls.Store(0)
	_, err = leased(t, f, Options{Poll: time.Millisecond, Now: func() time.Time {
		if calls.Add(1) == second {
			cancel()
		}
		return time.Now()
	}}).LeaseWorkerID(ctx, 3)
	if !errors.Is(err, noFreeID) || !errors.Is(err, context.Canceled) || calls.Load() != second {
		t.Errorf("LeaseWorkerID cut off as its second read of the fleet starts: %v after %d calls of its clock, want %q and %q after %d",
			err, calls.Load(), noFreeID, context.Canceled, second)
	}

	// The release comes while a waiter polls, having found every ID held.
	polling := make(chan struct{})
	calls.Store(0)
	waiter := leased(t, f, Options{Now: func() time.Time {
		if calls.Add(1) == second {
			close(polling)
		}
		return time.Now()
	}})
	got := make(chan uidgen.Lease, 1)
	wait := Context(t)
	go func() {
		b, err := waiter.LeaseWorkerID(wait, 3)
		if err != nil {
			t.Errorf("LeaseWorkerID while an ID is released: %v", err)
		}
		got <- b
	}()
	select {
	case <-polling:
	case b := <-got:
		if b != nil {
			b.Release(context.Background(), b.First()-1)
		}
		t.Fatal("the waiter returned before it read the fleet twice")
	}
	if err := a.Release(Context(t), a.First()); err != nil {
		t.Fatal(err)
	}
	b := <-got
	if b == nil {
		t.FailNow()
	}
	defer b.Release(context.Background(), b.First()-1)
	if b.WorkerID() != a.WorkerID() || b.First() <= a.First() {
		t.Errorf("the waiter leased worker ID %d from %d, want the released %d from above %d", b.WorkerID(), b.First(), a.WorkerID(), a.First())
	}
}

// testConcurrent has goroutines lease, use and release the same few IDs
// at once, behind a gate: no ID is held twice at once, and every holder
// starts above every second its ID's earlier holders used. No renewer
// outlives its Release.
func testConcurrent(t *testing.T, _ Store, f Fleet) {
	goroutines, rounds := sizetest.Pick(12, 6), sizetest.Pick(8, 4)
	const maxID = 3
	l := leased(t, f, Options{})
	// The first failure ends the others' waits for a free ID, which its
	// goroutine may never give back.
	ctx, cancel := context.WithCancel(Context(t))
	defer cancel()

	var mu sync.Mutex
	holder := map[int64]int{}     // worker ID -> goroutine holding it
	lastUsed := map[int64]int64{} // worker ID -> the last second its holders used
	use := func(g, r int) error {
		s, err := l.LeaseWorkerID(ctx, maxID)
		if err != nil {
			return err
		}
		id, first := s.WorkerID(), s.First()
		mu.Lock()
		other, held := holder[id]
		holder[id] = g
		before, used := lastUsed[id]
		mu.Unlock()
		switch {
		case held:
			err = fmt.Errorf("worker ID %d leased to goroutines %d and %d at once", id, other, g)
		case id < 1 || id > maxID:
			err = fmt.Errorf("worker ID %d leased, want one in [1, %d]", id, maxID)
		case used && first <= before:
			err = fmt.Errorf("worker ID %d: a holder starts at second %d, which an earlier holder used (to %d)", id, first, before)
		}
		last := first + int64(r%3)
		if err == nil {
			err = s.Wait(ctx, last)
		}
		mu.Lock()
		delete(holder, id)
		lastUsed[id] = max(before, last)
		mu.Unlock()
		return errors.Join(err, s.Release(ctx, last))
	}
	err := AtOnce(goroutines, func(g int) error {
		for r := range rounds {
			if err := use(g, r); err != nil {
				cancel()
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := leaktest.Settle(renewer, 5*time.Second); n != 0 {
		t.Errorf("%d renewers run after every lease was released", n)
	}
}

// renewer is the function of a lease's goroutine, for leaktest.
const renewer = "github.com/seed4d941b13/uidgen/internal/leasing.(*Lease).renew"

// testRange is Range on the fleet: worker ID 4, outside 5-8, keeps its
// reservation.
func testRange(t *testing.T, s Store, f Fleet) {
	var four int64
	noFreeID := uidgen.ErrNoFreeID
	Range(t, Context(t), noFreeID, f.Op(), func(r uidgen.WorkerIDRange) uidgen.Leaser {
		if r.Min == 5 {
			four = f.Reserved(t, 4)
		}
		return leased(t, f, Options{WorkerIDs: r})
	})
	if got := f.Reserved(t, 4); got != four {
		t.Errorf("worker ID 4, outside 5-8: recorded as reserved to %d after the leases, was %d", got, four)
	}
}

// testRangeErrors is RangeErrors on the fleet, which records nothing
// after it.
func testRangeErrors(t *testing.T, _ Store, f Fleet) {
	RangeErrors(t, Context(t), pkg(f), f.Op(), func(r uidgen.WorkerIDRange) (uidgen.Leaser, error) {
		return f.Leased(t, withKnobs(Options{WorkerIDs: r}))
	})
	for id := int64(1); id <= RangeMaxID; id++ {
		if got := f.Reserved(t, id); got != -1 {
			t.Errorf("worker ID %d recorded as reserved to %d after a lease of a range too wide, want nothing recorded", id, got)
		}
	}
}

// testList: List shows a held ID with its holder, when it acquired the ID,
// its lease left and its reservation, and a released one free, reserved to
// the last second its holder used. PID is this process's where the store
// keeps it.
func testList(t *testing.T, _ Store, f Fleet) {
	const ttl = 30 * time.Second
	start := time.Now()
	l := leased(t, f, Options{TTL: ttl})
	a, b := mustLease(t, l, 7), mustLease(t, l, 7)
	if err := b.Release(Context(t), b.First()); err != nil {
		t.Fatal(err)
	}
	rows, err := f.List(Context(t))
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(rows) != 2 || rows[0].ID > rows[1].ID {
		t.Fatalf("List: %+v, want IDs %d and %d, by ID", rows, a.WorkerID(), b.WorkerID())
	}
	held, free := rows[0], rows[1]
	if held.ID != a.WorkerID() {
		held, free = free, held
	}
	// The store's clock may read a second or two off this process's, and
	// a SQL table keeps seconds.
	since := held.Since.Sub(start)
	if held.ID != a.WorkerID() || !held.Held || held.LeaseLeft <= 0 || held.LeaseLeft > ttl || held.Reserved != a.Reserved() ||
		held.ReservedAhead <= 0 || held.Host == "" || since < -3*time.Second || since > time.Minute ||
		held.PID != 0 && held.PID != os.Getpid() {
		t.Errorf("held row %+v; want ID %d, held, with its host, since about %v, lease left, reservation %d and pid %d or none",
			held, a.WorkerID(), start.Round(time.Second), a.Reserved(), os.Getpid())
	}
	if free.ID != b.WorkerID() || free.Held || free.LeaseLeft != 0 || free.PID != 0 || !free.Since.IsZero() || free.Reserved != b.First() {
		t.Errorf("free row %+v; want ID %d, free, no holder, reserved to %d", free, b.WorkerID(), b.First())
	}
}
