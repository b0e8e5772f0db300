package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// TestLeaseConformance runs leasetest's suite on every database, each
// fleet a table of its own, the databases side by side.
func TestLeaseConformance(t *testing.T) {
	eachParallel(t, func(t *testing.T, _ dbtest.Server, db *sql.DB) { leasetest.Run(t, sqlStore{db}) })
}

// sqlStore is the leasetest.Store of a database.
type sqlStore struct{ db *sql.DB }

func (s sqlStore) Fleet(t *testing.T) leasetest.Fleet {
	f := tableFleet{db: s.db, table: testTable(t, s.db)}
	if err := EnsureSchema(testContext(t), Config{DB: f.db, Table: f.table}); err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}
	return f
}

// tableFleet is a fleet in a worker table with the lease columns.
type tableFleet struct {
	db    *sql.DB
	table string
}

func (f tableFleet) Leased(_ testing.TB, o leasetest.Options) (uidgen.Leaser, error) {
	l, err := NewLeased(Config{DB: f.db, Table: f.table, LeaseTTL: o.TTL, LeaseHorizon: o.Horizon, WorkerIDs: o.WorkerIDs})
	return leasetest.Tune(l, err, func(l *Leased) {
		// The suite's clock is not the one waitForClock waits by, and its
		// holders hand IDs back faster than a second apart: the protocol
		// is tested without the wait, which only delays a lease.
		l.now, l.poll, l.timing.Every, l.host.lookupEnv, l.catchUp = o.Now, o.Poll, o.Every, envOf(nil), 0
	})
}

func (f tableFleet) Op() string { return "worker: lease a worker ID from " + f.table }

func (f tableFleet) Now(t testing.TB) int64 {
	t.Helper()
	var now int64
	if err := f.db.QueryRow("SELECT " + dialectOf(t, f.db).NowSeconds()).Scan(&now); err != nil {
		t.Fatal(err)
	}
	return now
}

// Expire ends the lease on id by the server's clock.
func (f tableFleet) Expire(t testing.TB, id int64) {
	t.Helper()
	if _, err := f.db.Exec(q(t, f.db, "UPDATE "+f.table+" SET LEASE_UNTIL = "+dialectOf(t, f.db).NowMillis()+" - 1 WHERE ID = ?"), id); err != nil {
		t.Fatal(err)
	}
}

func (f tableFleet) Reserved(t testing.TB, id int64) int64 {
	t.Helper()
	var reserved sql.NullInt64
	err := f.db.QueryRow(q(t, f.db, "SELECT RESERVED_UNTIL FROM "+f.table+" WHERE ID = ?"), id).Scan(&reserved)
	switch {
	case errors.Is(err, sql.ErrNoRows) || err == nil && !reserved.Valid:
		return -1
	case err != nil:
		t.Fatal(err)
	}
	return reserved.Int64
}

func (f tableFleet) Reserve(t testing.TB, id, sec int64) {
	t.Helper()
	if _, err := f.db.Exec(q(t, f.db, "UPDATE "+f.table+" SET RESERVED_UNTIL = ? WHERE ID = ?"), sec, id); err != nil {
		t.Fatal(err)
	}
}

func (tableFleet) Store(t testing.TB, l uidgen.Lease) leasing.Store { return l.(*lease).store }

func (f tableFleet) List(ctx context.Context) ([]uidgen.LeaseRow, error) {
	rows, err := List(ctx, Config{DB: f.db, Table: f.table})
	leases := make([]uidgen.LeaseRow, len(rows))
	for i, r := range rows {
		leases[i] = r.LeaseRow
	}
	return leases, err
}

// newTestLeased returns a Leased of cfg on table of db, created with the
// lease columns, that sees an empty environment.
func newTestLeased(t testing.TB, db *sql.DB, table string, cfg Config) *Leased {
	t.Helper()
	if err := EnsureSchema(testContext(t), Config{DB: db, Table: table}); err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}
	cfg.DB, cfg.Table = db, table
	l, err := NewLeased(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l.host.lookupEnv = envOf(nil)
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

// renewNow makes s's renewer renew once, whatever it has reserved, and
// waits until it has.
func renewNow(t testing.TB, s *lease) {
	t.Helper()
	if err := s.RenewNow(testContext(t)); err != nil {
		t.Fatalf("renewal: %v", err)
	}
}

// TestLeaseJavaInterop: rows of Baidu's Java assigner and of Disposable are
// never leased, whatever their lease columns say, and Java's inserts go on
// working between leases.
func TestLeaseJavaInterop(t *testing.T) {
	eachParallel(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
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

		// With every ID up to 6 held, a lease that waits in vain says what
		// holds them: under a context with no deadline, once the range
		// stayed full for its TTL, from a pass that counted them.
		short := newTestLeased(t, db, table, Config{LeaseTTL: leasing.MinTTL})
		_, err = short.LeaseWorkerID(t.Context(), 6)
		checkErr(t, "LeaseWorkerID with 1 to 6 held", err, uidgen.ErrNoFreeID, []string{"all 6 IDs from 1 to 6 are held (2 leased, 4 disposable)"})
	})
}

func TestLeasedErrors(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		for _, tt := range []struct {
			ttl  time.Duration
			text string
		}{
			{999 * time.Millisecond, "999ms: want 1s to 1h"},
			{-time.Second, "-1s: want 1s to 1h"},
			{time.Hour + time.Second, "1h0m1s: want 1s to 1h"},
		} {
			l, err := NewLeased(Config{DB: db, LeaseTTL: tt.ttl})
			checkErr(t, "NewLeased", err, uidgen.ErrConfig, []string{"worker: invalid config: LeaseTTL " + tt.text})
			if l != nil {
				t.Errorf("NewLeased = %v with an error, want nil", l)
			}
		}
		for _, tt := range []struct {
			horizon time.Duration
			text    string
		}{
			{999 * time.Millisecond, "999ms: want 1s to 24h"},
			{-time.Minute, "-1m: want 1s to 24h"},
			{25 * time.Hour, "25h: want 1s to 24h"},
		} {
			l, err := NewLeased(Config{DB: db, LeaseHorizon: tt.horizon})
			checkErr(t, "NewLeased", err, uidgen.ErrConfig, []string{"worker: invalid config: LeaseHorizon " + tt.text})
			if l != nil {
				t.Errorf("NewLeased = %v with an error, want nil", l)
			}
		}

		table := testTable(t, db)
		ctx := testContext(t)
		if _, err := db.ExecContext(ctx, schemaFor(srv.Dialect(), table)); err != nil { // Baidu's columns only
			t.Fatal(err)
		}
		l, err := NewLeased(Config{DB: db, Table: table})
		if err != nil {
			t.Fatal(err)
		}
		l.host.lookupEnv = envOf(nil)
		_, err = l.LeaseWorkerID(ctx, 0)
		checkErr(t, "LeaseWorkerID(0)", err, uidgen.ErrConfig, []string{"worker: lease a worker ID from " + table, "invalid config: LeaseWorkerID given a largest worker ID of 0: want 1 or more, as every layout's worker bits allow"})
		_, err = l.LeaseWorkerID(ctx, 7)
		noColumn := map[string]string{"mysql": "1054", "postgres": "42703"}[srv.Kind]
		checkErr(t, "LeaseWorkerID without the lease columns", err, ErrNoLeaseColumns,
			[]string{"EnsureSchema", "`uidgen schema -dialect " + srv.Kind + "`", noColumn})
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
		{"crash", srv.Kill, srv.Restart, uidgen.ErrUnreachable},
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

// TestList shows a fleet of a Java row, a held lease and a released one,
// with the TYPE and HOST_NAME each holder wrote and the reservations the
// default timing makes; the lease suite's List checks the rest.
func TestList(t *testing.T) {
	each(t, func(t *testing.T, srv dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		l := newTestLeased(t, db, table, Config{})
		l.host.lookupEnv = envOf(map[string]string{"JPAAS_HOST": "10.0.0.9", "JPAAS_HTTP_PORT": "8080"})
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
			got = append(got, fmt.Sprint(r.ID, r.Disposable, r.Type, r.Host, r.Held, r.Reserved))
			// The held lease reserves the horizon and a third of the TTL
			// ahead; the released one reserves its last second, 5 s on.
			lo, hi := time.Duration(0), time.Duration(0)
			horizon, every := leasing.DefaultHorizon, leasing.DefaultTTL/3
			if srv.Kind == "sqlite" {
				horizon, every = leasing.FileHorizon, leasing.FileEvery
			}
			switch r.ID {
			case held.WorkerID():
				lo, hi = horizon, horizon+every+2*time.Second
			case free.WorkerID():
				lo, hi = time.Second, 6*time.Second
			}
			if r.ReservedAhead < lo || r.ReservedAhead > hi {
				t.Errorf("row %d: reserved %v ahead of the database's clock, want %v to %v", r.ID, r.ReservedAhead, lo, hi)
			}
		}
		// A SQLite file's holders all run on its machine: its rows name
		// the machine, whatever the environment says.
		typ, host := Container, "10.0.0.9"
		if srv.Kind == "sqlite" {
			typ = Actual
			if host, err = os.Hostname(); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{
			fmt.Sprint(java, true, Actual, "10.1.2.3", false, 0),
			fmt.Sprint(held.WorkerID(), false, typ, host, true, held.Reserved()),
			fmt.Sprint(free.WorkerID(), false, typ, host, false, free.First()+5),
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
