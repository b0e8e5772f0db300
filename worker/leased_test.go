package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/leaktest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
)

// renewer is the function of a lease's goroutine, for leaktest.Running.
const renewer = "github.com/seed4d941b13/uidgen/internal/leasing.(*Lease).renew"

// newTestLeased returns a Leased of cfg on table of db, created with the
// lease columns, that sees an empty environment unless cfg says otherwise.
func newTestLeased(t testing.TB, db *sql.DB, table string, cfg Config) *Leased {
	t.Helper()
	if err := EnsureSchema(testContext(t), Config{DB: db, Table: table}); err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}
	cfg.DB, cfg.Table = db, table
	if cfg.LookupEnv == nil {
		cfg.LookupEnv = envOf(nil)
	}
	l, err := NewLeased(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// mustLease leases an ID up to maxID, released with lastUsed First()-1 when
// the test ends unless the test released it.
func mustLease(t testing.TB, l *Leased, maxID int64) *lease {
	t.Helper()
	return leasetest.Must[*lease](t, testContext(t), l, maxID)
}

// row is a worker row's lease columns.
type row struct {
	leased              int
	owner               sql.NullString
	leaseUntil, expires sql.NullInt64 // expires: LEASE_UNTIL minus the server's now, in ms
	reservedUntil       sql.NullInt64
}

func readRow(t testing.TB, db *sql.DB, table string, id int64) row {
	t.Helper()
	var r row
	err := db.QueryRow(q(t, db, "SELECT LEASED, OWNER, LEASE_UNTIL, LEASE_UNTIL - "+dialectOf(t, db).NowMillis()+", RESERVED_UNTIL FROM "+table+" WHERE ID = ?"), id).
		Scan(&r.leased, &r.owner, &r.leaseUntil, &r.expires, &r.reservedUntil)
	if err != nil {
		t.Fatalf("read row %d: %v", id, err)
	}
	return r
}

// expire ends the lease on id by the server's clock, as its TTL passing
// without a renewal would.
func expire(t testing.TB, db *sql.DB, table string, id int64) {
	t.Helper()
	if _, err := db.Exec(q(t, db, "UPDATE "+table+" SET LEASE_UNTIL = "+dialectOf(t, db).NowMillis()+" - 1 WHERE ID = ?"), id); err != nil {
		t.Fatal(err)
	}
}

// dbNow returns the server's clock in Unix seconds.
func dbNow(t testing.TB, db *sql.DB) int64 {
	t.Helper()
	var now int64
	if err := db.QueryRow("SELECT " + dialectOf(t, db).NowSeconds()).Scan(&now); err != nil {
		t.Fatal(err)
	}
	return now
}

// clockAt returns a clock that reads off by d from the real one.
func clockAt(d time.Duration) func() time.Time {
	return func() time.Time { return time.Now().Add(d) }
}

func TestLeaseLowestFreeFirst(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{})
		ctx := testContext(t)

		var held []*lease
		for want := int64(1); want <= 3; want++ {
			s := mustLease(t, l, 7)
			if s.WorkerID() != want {
				t.Fatalf("lease %d: worker ID %d, want %d", want, s.WorkerID(), want)
			}
			held = append(held, s)
		}
		if err := held[1].Release(ctx, held[1].First()); err != nil {
			t.Fatalf("Release: %v", err)
		}
		for _, want := range []int64{2, 4} {
			if s := mustLease(t, l, 7); s.WorkerID() != want {
				t.Errorf("after releasing 2: worker ID %d, want %d", s.WorkerID(), want)
			}
		}
	})
}

// TestLeaseExpiresByServerClock: clients whose clocks run hours ahead or
// behind neither take a live lease nor miss an expired one, since the server's
// clock alone says which leases expired.
func TestLeaseExpiresByServerClock(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		a := mustLease(t, newTestLeased(t, db, table, Config{}), 2)

		ahead := newTestLeased(t, db, table, Config{})
		ahead.now = clockAt(2 * time.Hour)
		if b := mustLease(t, ahead, 2); b.WorkerID() == a.WorkerID() {
			t.Fatalf("a client two hours ahead took worker ID %d while its lease was live", a.WorkerID())
		}

		expire(t, db, table, a.WorkerID())
		behind := newTestLeased(t, db, table, Config{})
		behind.now = clockAt(-2 * time.Hour)
		c := mustLease(t, behind, 2) // the other ID is held: only a's is free
		if c.WorkerID() != a.WorkerID() {
			t.Fatalf("a client two hours behind leased worker ID %d, want %d, whose lease expired", c.WorkerID(), a.WorkerID())
		}
		if c.First() <= a.Reserved() {
			t.Errorf("new holder starts at %d, not above the old one's reservation %d", c.First(), a.Reserved())
		}
	})
}

// TestLeaseStartsAboveReservation: a takeover reads the row's reservation
// and starts above it, or at the server's now when that is later.
func TestLeaseStartsAboveReservation(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{})
		id := mustLease(t, l, 1).WorkerID()
		for _, tt := range []struct {
			name   string
			offset int64 // RESERVED_UNTIL, from the server's now
		}{
			{"reserved ahead", 1000},
			{"reserved behind", -1000},
		} {
			t.Run(tt.name, func(t *testing.T) {
				before := dbNow(t, db)
				reserved := before + tt.offset
				if _, err := db.Exec(q(t, db, "UPDATE "+table+" SET RESERVED_UNTIL = ? WHERE ID = ?"), reserved, id); err != nil {
					t.Fatal(err)
				}
				expire(t, db, table, id)
				s := mustLease(t, l, 1)
				after := dbNow(t, db)
				if s.WorkerID() != id {
					t.Fatalf("worker ID %d, want %d", s.WorkerID(), id)
				}
				if lo, hi := max(before, reserved+1), max(after, reserved+1); s.First() < lo || s.First() > hi {
					t.Errorf("Start %d, want max(server now, %d + 1) in [%d, %d]", s.First(), reserved, lo, hi)
				}
				r := readRow(t, db, table, id)
				if s.Reserved() < s.First() || r.reservedUntil.Int64 != s.Reserved() {
					t.Errorf("Reserved %d, RESERVED_UNTIL %v; want them equal and at least Start %d", s.Reserved(), r.reservedUntil, s.First())
				}
			})
		}
	})
}

// TestLeaseLost: once another process took the row over, the old holder's
// renewal finds it taken, its reservation stops growing, and its renewer
// ends.
func TestLeaseLost(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{})
		l.timing.Every = time.Hour // only Need and Wait make it renew
		a := mustLease(t, l, 1)
		reserved := a.Reserved()

		expire(t, db, table, a.WorkerID())
		b := mustLease(t, newTestLeased(t, db, table, Config{}), 1)
		if b.WorkerID() != a.WorkerID() || b.First() <= reserved {
			t.Fatalf("takeover: worker ID %d from %d, want %d from above %d", b.WorkerID(), b.First(), a.WorkerID(), reserved)
		}

		err := a.Wait(testContext(t), reserved+1)
		if !errors.Is(err, uidgen.ErrLeaseLost) || !strings.HasPrefix(err.Error(), "worker: ") {
			t.Fatalf("Wait after the takeover: %v, want an error wrapping %q", err, uidgen.ErrLeaseLost)
		}
		if err := a.Err(); !errors.Is(err, uidgen.ErrLeaseLost) {
			t.Errorf("Err after the takeover: %v, want %q", err, uidgen.ErrLeaseLost)
		}
		<-a.Done() // the renewer ends by itself
		a.Need(reserved + 100)
		if a.Reserved() != reserved {
			t.Errorf("Reserved %d after the loss, want %d as before", a.Reserved(), reserved)
		}
		if err := a.Release(testContext(t), reserved); !errors.Is(err, uidgen.ErrLeaseLost) {
			t.Errorf("Release of a lost lease: %v, want %q", err, uidgen.ErrLeaseLost)
		}
		if r := readRow(t, db, table, b.WorkerID()); r.owner.String != b.store.token {
			t.Errorf("OWNER %v after the old holder's Release, want the new holder's %s", r.owner, b.store.token)
		}
		if err := b.Wait(testContext(t), b.Reserved()+5); err != nil {
			t.Errorf("new holder's Wait: %v", err)
		}
	})
}

// TestLeaseRelease: a released ID is free at once, and the next holder
// starts above the last second used, or, where the holder used nothing,
// above what the holders before it reserved.
func TestLeaseRelease(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{})
		ctx := testContext(t)

		a := mustLease(t, l, 1)
		lastUsed := a.First() + 100
		for range 2 {
			if err := a.Release(ctx, lastUsed); err != nil {
				t.Fatalf("Release: %v", err)
			}
		}
		r := readRow(t, db, table, a.WorkerID())
		if r.owner.Valid || r.expires.Int64 > 0 || r.reservedUntil.Int64 != lastUsed {
			t.Errorf("released row: OWNER %v, expires in %d ms, RESERVED_UNTIL %v; want NULL, now or before, %d",
				r.owner, r.expires.Int64, r.reservedUntil, lastUsed)
		}
		if err := a.Wait(ctx, a.Reserved()+1); !errors.Is(err, ErrReleased) {
			t.Errorf("Wait after Release: %v, want %q", err, ErrReleased)
		}
		// A renewal of the released holder still on its way to the server
		// changes nothing.
		if err := a.store.Extend(ctx, a.Reserved()+1000); !errors.Is(err, uidgen.ErrLeaseLost) {
			t.Errorf("extend after Release: %v, want %q", err, uidgen.ErrLeaseLost)
		}

		b := mustLease(t, l, 1)
		if b.WorkerID() != a.WorkerID() || b.First() != lastUsed+1 {
			t.Fatalf("after Release: worker ID %d from %d, want %d from %d", b.WorkerID(), b.First(), a.WorkerID(), lastUsed+1)
		}
		if err := b.Release(ctx, 0); err != nil { // used nothing
			t.Fatal(err)
		}
		if c := mustLease(t, l, 1); c.First() != lastUsed+1 {
			t.Errorf("after a holder that used nothing: Start %d, want %d", c.First(), lastUsed+1)
		}
	})
}

// TestLeaseHorizon: with the defaults a lease reserves ten minutes and a
// third of the TTL ahead of the clock from the start, and every renewal at
// idle keeps that much reserved: a holder cut off from the database right
// after a renewal goes on for the whole horizon, and right before the next
// one for the horizon still.
func TestLeaseHorizon(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{})
		var now atomic.Int64
		now.Store(time.Now().Unix())
		l.now = func() time.Time { return time.Unix(now.Load(), 0) }
		l.timing.Every = time.Hour // only Need, Wait and renewNow make it renew
		s := mustLease(t, l, 7)
		ahead := int64((DefaultLeaseHorizon + DefaultLeaseTTL/3) / time.Second)
		if want := max(s.First(), now.Load()) + ahead; s.Reserved() != want {
			t.Fatalf("first reservation to %d, want %d: %d s ahead", s.Reserved(), want, ahead)
		}
		for range 3 {
			now.Add(int64(DefaultLeaseTTL / 3 / time.Second)) // a renewal's period, used at idle
			s.Need(now.Load())
			renewNow(t, s)
			if left := s.Reserved() - now.Load(); left < ahead {
				t.Fatalf("after a renewal at idle: %d s reserved ahead of the clock, want %d", left, ahead)
			}
		}
		if r := readRow(t, db, table, s.WorkerID()); r.reservedUntil.Int64 != s.Reserved() {
			t.Errorf("RESERVED_UNTIL %v, want the holder's %d", r.reservedUntil, s.Reserved())
		}
	})
}

// TestLeaseColdFirst: a holder that died leaves its ID reserved up to a
// horizon ahead. The next holder takes the lowest free ID whose reservation
// has passed, then a new row, both from the clock; only when every free ID
// is reserved ahead, the one whose reservation ends soonest, above it.
func TestLeaseColdFirst(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{})
		for range 3 {
			mustLease(t, l, 7) // 1, 2 and 3
		}
		now := dbNow(t, db)
		// 2's reservation runs out within coldSlack, as a clean release's of
		// a cached generator does; 1's and 3's are left by crashes.
		for id, reserved := range map[int64]int64{1: now + 600, 2: now + 5, 3: now + 300} {
			if _, err := db.Exec(q(t, db, "UPDATE "+table+" SET RESERVED_UNTIL = ? WHERE ID = ?"), reserved, id); err != nil {
				t.Fatal(err)
			}
			expire(t, db, table, id) // as if its holder died
		}
		for _, tt := range []struct {
			maxID, want int64
			from, to    int64 // the range Start must lie in
		}{
			{7, 2, now + 6, now + 7},     // cold, the lowest, above its reservation
			{7, 4, now, now + 5},         // a new row before a hot one
			{4, 3, now + 301, now + 301}, // only hot ones free: the soonest over
			{4, 1, now + 601, now + 601},
		} {
			s := mustLease(t, l, tt.maxID)
			if s.WorkerID() != tt.want || s.First() < tt.from || s.First() > tt.to {
				t.Errorf("up to %d: worker ID %d from %d, want %d from %d to %d (the database's now is %d)",
					tt.maxID, s.WorkerID(), s.First(), tt.want, tt.from, tt.to, now)
			}
		}
	})
}

// TestLeaseRenewsAtPace: Need makes the renewer reserve ahead by one TTL's
// worth of seconds at the pace they are asked for, so a holder borrowing
// seconds flat out finds them reserved before it asks.
func TestLeaseRenewsAtPace(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		// Reservations run the horizon and a third of the TTL ahead: 3 s.
		l := newTestLeased(t, db, table, Config{LeaseTTL: 3 * time.Second, LeaseHorizon: 2 * time.Second})
		var now atomic.Int64
		now.Store(time.Now().Unix())
		l.now = func() time.Time { return time.Unix(now.Load(), 0) }
		l.timing.Every = time.Hour // only Need and Wait make it renew
		s := mustLease(t, l, 7)
		if want := max(s.First(), now.Load()) + 3; s.Reserved() != want {
			t.Fatalf("first reservation to %d, want %d: the horizon and a third of the TTL ahead", s.Reserved(), want)
		}

		// 100 seconds of IDs in one second of the clock.
		now.Add(1)
		need := s.First() + 99
		s.Need(need)
		if err := s.Wait(testContext(t), need); err != nil {
			t.Fatal(err)
		}
		if want := need + 300; s.Reserved() != want {
			t.Errorf("at 100 s/s, 3 s ahead: reserved to %d, want %d", s.Reserved(), want)
		}

		// A renewal at a slower pace reserves less far ahead, and must not
		// take back what the row already reserves.
		reserved := s.Reserved()
		renewNow(t, s)
		if r := readRow(t, db, table, s.WorkerID()); s.Reserved() != reserved || r.reservedUntil.Int64 != reserved || r.expires.Int64 <= 0 {
			t.Errorf("after a slower renewal: Reserved %d, RESERVED_UNTIL %v, expires in %d ms; want %d, %d, later than now",
				s.Reserved(), r.reservedUntil, r.expires.Int64, reserved, reserved)
		}

		// Renewals closer together than a millisecond still change the row,
		// so zero rows affected means only that the lease is lost.
		for i := range 20 {
			if err := s.store.Extend(testContext(t), reserved); err != nil {
				t.Fatalf("extend %d: %v", i, err)
			}
		}
	})
}

// TestLeaseStartBurst: a holder that asks for many seconds at once, as a
// cached generator filling its ring at start-up does, gets them reserved
// without the pace of that instant carrying the reservation hours ahead.
func TestLeaseStartBurst(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{LeaseTTL: 2 * time.Second, LeaseHorizon: 2 * time.Second})
		s := mustLease(t, l, 7)
		need := s.First() + 8 // the default ring: 8 seconds in a few milliseconds
		s.Need(need)
		if err := s.Wait(testContext(t), need); err != nil {
			t.Fatal(err)
		}
		// 9 seconds (Start-1 to need) over a third of the 2 s TTL is 13.5 s/s,
		// and the 2 s horizon and a third of the TTL of them are 36 s ahead.
		if ahead := s.Reserved() - need; ahead > 37 {
			t.Fatalf("reserved %d s past the %d asked for, want at most 37", ahead, need)
		}
	})
}

// renewNow makes s's renewer renew once, whatever it has reserved, and
// waits until it has.
func renewNow(t testing.TB, s *lease) {
	t.Helper()
	if err := s.RenewNow(testContext(t)); err != nil {
		t.Fatalf("renewal: %v", err)
	}
}

// TestLeaseNoFreeID: with every ID up to the maximum held, LeaseWorkerID
// waits for one to come free, and says how many are held when ctx ends.
func TestLeaseNoFreeID(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{})
		l.poll = 10 * time.Millisecond
		javaInsert(t, db, table)
		a := mustLease(t, l, 3)
		mustLease(t, l, 3)

		// Long enough for a pass over the table under -race on a loaded
		// machine, and many polls.
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		_, err := l.LeaseWorkerID(ctx, 3)
		checkErr(t, "LeaseWorkerID", err, ErrNoFreeID, []string{"worker: lease a worker ID from " + table,
			"all 3 IDs from 1 to 3 are held (2 leased, 1 disposable)", "context deadline exceeded"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v does not wrap %v", err, context.DeadlineExceeded)
		}

		got := make(chan int64)
		go func() {
			s := mustLease(t, l, 3)
			got <- s.WorkerID()
		}()
		if err := a.Release(testContext(t), a.First()); err != nil {
			t.Fatal(err)
		}
		if id := <-got; id != a.WorkerID() {
			t.Errorf("the waiting lease got worker ID %d, want the released %d", id, a.WorkerID())
		}
	})
}

// TestLeaseJavaInterop: rows of Baidu's Java assigner and of Disposable are
// never leased, whatever their lease columns say, and Java's inserts go on
// working between leases.
func TestLeaseJavaInterop(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{})
		java := javaInsert(t, db, table)
		disposable, err := newTestDisposable(t, db, table).AssignWorkerID(testContext(t))
		if err != nil {
			t.Fatal(err)
		}
		// As an operator might: the lease columns of disposable rows say "expired".
		if _, err := db.Exec("UPDATE " + table + " SET LEASE_UNTIL = 0, RESERVED_UNTIL = 0"); err != nil {
			t.Fatal(err)
		}
		// On PostgreSQL an insert that leaves the ID to the identity column
		// collides with a leased ID above the column's sequence, which a
		// Disposable moves on; there is no Java assigner there.
		insert := func() int64 { return javaInsert(t, db, table) }
		if srv.Kind == "postgres" {
			insert = func() int64 {
				id, err := newTestDisposable(t, db, table).AssignWorkerID(testContext(t))
				if err != nil {
					t.Fatal(err)
				}
				return id
			}
		}
		var ids []int64
		for range 2 {
			ids = append(ids, mustLease(t, l, 7).WorkerID())
			ids = append(ids, insert())
		}
		want := []int64{disposable + 1, disposable + 2, disposable + 3, disposable + 4}
		if java != 1 || disposable != 2 || !slices.Equal(ids, want) {
			t.Errorf("Java %d, disposable %d, then lease, Java, lease, Java: %v; want 1, 2, %v", java, disposable, ids, want)
		}
	})
}

// TestLeaseConcurrent leases from many goroutines at once on three worker
// bits: no ID is held twice at once, and each holder of an ID starts above
// the last second its previous holder used.
func TestLeaseConcurrent(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		goroutines, rounds := 16, 6
		if testing.Short() {
			goroutines, rounds = 8, 3
		}
		const maxID = 1<<3 - 1
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{})
		l.poll = 5 * time.Millisecond

		var mu sync.Mutex
		holder := make(map[int64]int)     // worker ID -> goroutine holding it
		lastUsed := make(map[int64]int64) // worker ID -> last second its last holder used
		ctx := testContext(t)
		err := atOnce(goroutines, func(g int) error {
			for range rounds {
				got, err := l.LeaseWorkerID(ctx, maxID)
				if err != nil {
					return err
				}
				id, start := got.WorkerID(), got.First()
				mu.Lock()
				other, held := holder[id]
				last := lastUsed[id]
				holder[id] = g
				mu.Unlock()
				if held {
					return fmt.Errorf("worker ID %d leased to goroutines %d and %d at once", id, other, g)
				}
				if id < 1 || id > maxID || start <= last {
					return fmt.Errorf("worker ID %d from second %d; want an ID in [1, %d] from above %d", id, start, maxID, last)
				}
				if err := got.Wait(ctx, start+1); err != nil {
					return err
				}
				mu.Lock()
				delete(holder, id)
				lastUsed[id] = start + 1
				mu.Unlock()
				if err := got.Release(ctx, start+1); err != nil {
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
	})
}

// TestLeaseRange: leasetest.Range on a worker table; rows outside 5-8
// stay as they were, and with 5-8 full the lease names the range although
// row 9 above it is taken too, saying what holds them.
func TestLeaseRange(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		var four row
		op := "worker: lease a worker ID from " + table
		err := leasetest.Range(t, testContext(t), ErrNoFreeID, op, func(r uidgen.WorkerIDRange) uidgen.Leaser {
			if r.Min == 5 {
				four = readRow(t, db, table, 4)
			}
			l := newTestLeased(t, db, table, Config{WorkerIDs: r})
			l.poll = 5 * time.Millisecond
			return l
		})
		if err == nil || !strings.Contains(err.Error(), "all 4 IDs from 5 to 8 are held (4 leased, 0 disposable)") {
			t.Errorf("LeaseWorkerID with 5-8 full: %v, want it to say what holds 5 to 8", err)
		}
		if got := readRow(t, db, table, 4); got.owner != four.owner || got.leaseUntil != four.leaseUntil || got.reservedUntil != four.reservedUntil {
			t.Errorf("row 4, outside 5-8: %+v after the leases, was %+v", got, four)
		}
	})
}

// TestLeaseRangeErrors: leasetest.RangeErrors on a worker table, which
// holds no row after it.
func TestLeaseRangeErrors(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		if err := EnsureSchema(testContext(t), Config{DB: db, Table: table}); err != nil {
			t.Fatal(err)
		}
		leasetest.RangeErrors(t, testContext(t), "worker", "worker: lease a worker ID from "+table,
			func(r uidgen.WorkerIDRange) (uidgen.Leaser, error) {
				return NewLeased(Config{DB: db, Table: table, WorkerIDs: r, LookupEnv: envOf(nil)})
			})
		var rows int
		if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&rows); err != nil || rows != 0 {
			t.Errorf("%d rows after a lease of a range too wide (%v), want none", rows, err)
		}
	})
}

func TestLeasedErrors(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		for _, tt := range []struct {
			ttl  time.Duration
			text string
		}{
			{999 * time.Millisecond, "999ms, want 1s to 1h0m0s"},
			{-time.Second, "-1s, want 1s to 1h0m0s"},
			{time.Hour + time.Second, "1h0m1s, want 1s to 1h0m0s"},
		} {
			l, err := NewLeased(Config{DB: db, LeaseTTL: tt.ttl})
			checkErr(t, "NewLeased", err, ErrLeaseTTL, []string{"worker: lease TTL out of range: " + tt.text})
			if l != nil {
				t.Errorf("NewLeased = %v with an error, want nil", l)
			}
		}
		for _, tt := range []struct {
			horizon time.Duration
			text    string
		}{
			{999 * time.Millisecond, "999ms, want 1s to 24h0m0s"},
			{-time.Minute, "-1m0s, want 1s to 24h0m0s"},
			{25 * time.Hour, "25h0m0s, want 1s to 24h0m0s"},
		} {
			l, err := NewLeased(Config{DB: db, LeaseHorizon: tt.horizon})
			checkErr(t, "NewLeased", err, ErrLeaseHorizon, []string{"worker: lease horizon out of range: " + tt.text})
			if l != nil {
				t.Errorf("NewLeased = %v with an error, want nil", l)
			}
		}

		table := testTable(t, db)
		ctx := testContext(t)
		if _, err := db.ExecContext(ctx, schemaFor(srv.Dialect(), table)); err != nil { // Baidu's columns only
			t.Fatal(err)
		}
		l, err := NewLeased(Config{DB: db, Table: table, LookupEnv: envOf(nil)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = l.LeaseWorkerID(ctx, 0)
		checkErr(t, "LeaseWorkerID(0)", err, ErrMaxWorkerID, []string{"worker: lease a worker ID from " + table, "0, want 1 or more"})
		_, err = l.LeaseWorkerID(ctx, 7)
		noColumn := map[string]string{"mysql": "1054", "postgres": "42703"}[srv.Kind]
		checkErr(t, "LeaseWorkerID without the lease columns", err, ErrNoLeaseColumns, []string{"EnsureSchema", noColumn})
	})
}

// TestLeaseOutage runs a lease against a throwaway server that crashes,
// comes back, and then stops answering: while the database is away the
// holder keeps the seconds it reserved and no more, Wait beyond them fails
// naming the database's error, and renewal goes on by itself once the
// database is back.
func TestLeaseOutage(t *testing.T) {
	for _, kind := range dbtest.ServerKinds {
		t.Run(kind, func(t *testing.T) { testLeaseOutage(t, kind) })
	}
}

func testLeaseOutage(t *testing.T, kind string) {
	srv := dbtest.Start(t, kind)
	db := srv.Server().Open(t)
	l := newTestLeased(t, db, DefaultTable, Config{LeaseTTL: 3 * time.Second})
	s := mustLease(t, l, 7)
	ctx := testContext(t)

	for _, tt := range []struct {
		name          string
		fail, recover func()
		want          error
	}{
		{"crash", srv.Kill, srv.Restart, ErrUnreachable},
		{"no answer", srv.Pause, srv.Resume, context.DeadlineExceeded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.fail()
			// A renewal under way when the database went may still land;
			// once one has failed, none can.
			var err error
			for range 5 {
				if err = s.Wait(ctx, s.Reserved()+1); err != nil {
					break
				}
			}
			if err == nil {
				t.Fatal("database down: Wait beyond the reservation succeeded 5 times")
			}
			reserved := s.Reserved()
			if err := s.Wait(ctx, reserved); err != nil || s.Err() != nil {
				t.Fatalf("database down: Wait for reserved second %d: %v; Err %v; want nil, nil", reserved, err, s.Err())
			}
			err = s.Wait(ctx, reserved+1)
			checkErr(t, "Wait beyond the reservation", err, tt.want, []string{
				"worker: the reservation of worker ID 1 ends at second", "renewing it failed"})
			if s.Reserved() != reserved || s.Err() != nil {
				t.Errorf("database down: Reserved %d, Err %v; want %d, nil", s.Reserved(), s.Err(), reserved)
			}

			tt.recover()
			deadline := time.Now().Add(10 * time.Second)
			for err = s.Wait(ctx, reserved+1); err != nil && time.Now().Before(deadline); err = s.Wait(ctx, reserved+1) {
				time.Sleep(100 * time.Millisecond) // the renewer retries on its own; a failed Wait asks again
			}
			if err != nil || s.Err() != nil {
				t.Fatalf("database back: Wait %v, Err %v; want nil, nil", err, s.Err())
			}
		})
	}
	if err := s.Release(ctx, s.First()); err != nil {
		t.Errorf("Release after the outages: %v", err)
	}
}

// TestList shows a fleet of a Java row, a held lease and a released one.
func TestList(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{LookupEnv: envOf(map[string]string{"JPAAS_HOST": "10.0.0.9", "JPAAS_HTTP_PORT": "8080"})})
		java := javaInsert(t, db, table)
		held := mustLease(t, l, 7)
		free := mustLease(t, l, 7)
		if err := free.Release(testContext(t), free.First()+5); err != nil {
			t.Fatal(err)
		}

		rows, err := List(testContext(t), Config{DB: db, Table: table})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprint(r.ID, r.Leased, r.Type, r.Host, r.Held, r.LastReserved))
			if r.Held != (r.LeaseLeft > 0) || r.LeaseLeft > DefaultLeaseTTL {
				t.Errorf("row %d: held %v with %v left, want held just when time is left, at most %v", r.ID, r.Held, r.LeaseLeft, DefaultLeaseTTL)
			}
			// The held lease reserves the horizon and a third of the TTL
			// ahead; the released one reserves its last second, 5 s on.
			lo, hi := time.Duration(0), time.Duration(0)
			switch r.ID {
			case held.WorkerID():
				lo, hi = DefaultLeaseHorizon, DefaultLeaseHorizon+DefaultLeaseTTL/3+2*time.Second
			case free.WorkerID():
				lo, hi = time.Second, 6*time.Second
			}
			if r.ReservedAhead < lo || r.ReservedAhead > hi {
				t.Errorf("row %d: reserved %v ahead of the database's clock, want %v to %v", r.ID, r.ReservedAhead, lo, hi)
			}
		}
		want := []string{
			fmt.Sprint(java, false, Actual, "10.1.2.3", false, 0),
			fmt.Sprint(held.WorkerID(), true, Container, "10.0.0.9", true, held.Reserved()),
			fmt.Sprint(free.WorkerID(), true, Container, "10.0.0.9", false, free.First()+5),
		}
		if !slices.Equal(got, want) {
			t.Errorf("List:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestLeaseExpiresEarly: Expires never says the lease lasts longer than the
// row's LEASE_UNTIL does (client and server share a clock here), and each
// renewal moves it on.
func TestLeaseExpiresEarly(t *testing.T) {
	each(t, func(t *testing.T, _ dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{LeaseTTL: 3 * time.Second})
		l.timing.Every = time.Hour // only renewNow renews
		// sent is taken before the lease, and then before each renewal.
		sent := time.Now()
		s := mustLease(t, l, 7)
		before := s.Expires()
		for _, when := range []string{"leased", "renewed"} {
			r := readRow(t, db, table, s.WorkerID())
			left := time.Until(s.Expires())
			// The server's now is read to the millisecond: one of slack.
			// Expires counts the TTL from when the request was sent, so
			// at least the TTL less the time since then is left.
			if row := time.Duration(r.expires.Int64+1) * time.Millisecond; left > row || left < 3*time.Second-time.Since(sent) {
				t.Errorf("%s: Expires is %v away, the row's LEASE_UNTIL %v; want no later, and the 3s TTL from the request", when, left, row)
			}
			sent = time.Now()
			renewNow(t, s)
		}
		if !s.Expires().After(before) {
			t.Errorf("Expires %v after renewals, want later than %v", s.Expires(), before)
		}
	})
}
