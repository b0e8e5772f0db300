package worker

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/mysqltest"
)

// testTimeout bounds every statement a test sends, so a hung server fails
// the test instead of stalling it.
const testTimeout = 30 * time.Second

// testDB opens the test server's database.
func testDB(t testing.TB) *sql.DB {
	t.Helper()
	return mysqltest.DB(t)
}

// testTable returns a table name of this test's own, dropped when it ends.
func testTable(t testing.TB, db *sql.DB) string {
	t.Helper()
	return mysqltest.Table(t, db)
}

// testDatabase opens a database of this test's own, dropped when it ends:
// there the table may be WORKER_NODE itself.
func testDatabase(t testing.TB) *sql.DB {
	t.Helper()
	return mysqltest.Open(t, mysqltest.Database(t))
}

// testContext returns a context bounded by testTimeout.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// envOf returns a WithLookupEnv function that reads only vars.
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
	if err := EnsureSchema(testContext(t), db, WithTable(table)); err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}
	d, err := NewDisposable(db, WithTable(table), WithLookupEnv(envOf(nil)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// atOnce runs f(0), ..., f(n-1) on n goroutines that wait behind a gate,
// so that they start together, and returns their errors joined.
func atOnce(n int, f func(g int) error) error {
	errs := make([]error, n)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			<-gate
			errs[g] = f(g)
		})
	}
	close(gate)
	wg.Wait()
	return errors.Join(errs...)
}
