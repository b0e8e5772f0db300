package worker

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/dialect"
)

// testTimeout bounds every statement a test sends, so a hung server fails
// the test instead of stalling it.
const testTimeout = 30 * time.Second

// each runs f on every shared server (dbtest.Each) with its database
// open: every test of the database runs on MySQL and on PostgreSQL, from
// one body.
func each(t *testing.T, f func(t *testing.T, s dbtest.Server, db *sql.DB)) {
	t.Helper()
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) { f(t, s, s.Open(t)) })
}

// eachParallel is each with the databases side by side, for the tests
// that mostly wait (on deadlines, polls and renewals) in tables of their
// own on each: the three runs share nothing but the servers.
func eachParallel(t *testing.T, f func(t *testing.T, s dbtest.Server, db *sql.DB)) {
	t.Helper()
	for _, kind := range dbtest.Kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			s := dbtest.Shared(t, kind)
			f(t, s, s.Open(t))
		})
	}
}

// testTable returns a table name of this test's own, dropped when it ends.
func testTable(t testing.TB, db *sql.DB) string {
	t.Helper()
	return dbtest.Table(t, db, "WORKER_NODE_")
}

// testDatabase opens a database of this test's own on s, dropped when it
// ends: there the table may be WORKER_NODE itself.
func testDatabase(t testing.TB, s dbtest.Server) *sql.DB {
	t.Helper()
	return s.Database(t).Open(t)
}

// dialectOf returns db's dialect.
func dialectOf(t testing.TB, db *sql.DB) *dialect.Dialect {
	t.Helper()
	d, err := dialect.Of(db)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// q returns query, written with ? placeholders, in db's dialect.
func q(t testing.TB, db *sql.DB, query string) string {
	t.Helper()
	return dialectOf(t, db).Rebind(query)
}

// testContext returns a context bounded by testTimeout.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// envOf returns a host's lookupEnv that reads only vars, so that a test
// sees the environment it names and not the one it runs in.
func envOf(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// newTestDisposable returns a Disposable on table, created, that sees an
// empty environment, for tests that do not look at the row.
func newTestDisposable(t testing.TB, db *sql.DB, table string) *Disposable {
	t.Helper()
	if err := EnsureSchema(testContext(t), Config{DB: db, Table: table}); err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}
	d, err := NewDisposable(Config{DB: db, Table: table})
	if err != nil {
		t.Fatal(err)
	}
	d.host.lookupEnv = envOf(nil)
	return d
}
