package worker

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// dsnEnv names the variable that points the tests at a real MySQL server.
const dsnEnv = "UIDGEN_MYSQL_DSN"

// testTimeout bounds every statement a test sends, so a hung server fails
// the test instead of stalling it.
const testTimeout = 30 * time.Second

// testConfig returns the test server's DSN, parsed. Without one it fails the
// test in CI, where .ci/run must provide it, and skips it elsewhere.
func testConfig(t testing.TB) *mysql.Config {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is unset in CI: .ci/run must start MariaDB and export it", dsnEnv)
		}
		t.Skipf("needs a MySQL server: run %s='root@tcp(127.0.0.1:3306)/test' go test ./worker/ (or bash .ci/run)", dsnEnv)
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("%s: %v", dsnEnv, err)
	}
	return cfg
}

// openDB opens cfg, closed when the test ends.
func openDB(t testing.TB, cfg *mysql.Config) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatalf("open %s: %v", cfg.FormatDSN(), err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// testDB opens the test server's database.
func testDB(t testing.TB) *sql.DB {
	t.Helper()
	return openDB(t, testConfig(t))
}

// uniqueName returns prefix and 16 random hex digits, a name no other test
// run uses.
func uniqueName(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// testTable returns a table name of this test's own, dropped when it ends.
func testTable(t testing.TB, db *sql.DB) string {
	t.Helper()
	name := uniqueName("WORKER_NODE_")
	t.Cleanup(func() {
		if _, err := db.Exec("DROP TABLE IF EXISTS " + name); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
	})
	return name
}

// testDatabase creates a database of this test's own, dropped when it ends,
// and opens it: there the table may be WORKER_NODE itself.
func testDatabase(t testing.TB) *sql.DB {
	t.Helper()
	cfg := testConfig(t)
	admin := openDB(t, cfg)
	name := uniqueName("uidgen_test_")
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	cfg = cfg.Clone()
	cfg.DBName = name
	return openDB(t, cfg)
}

// testContext returns a context bounded by testTimeout.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// quiet is a logger that drops everything.
var quiet = slog.New(slog.DiscardHandler)

// envOf returns a WithLookupEnv function that reads only vars.
func envOf(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

// newTestDisposable returns a Disposable on table that sees an empty
// environment and logs nothing, for tests that do not look at the row.
func newTestDisposable(t testing.TB, db *sql.DB, table string, opts ...Option) *Disposable {
	t.Helper()
	opts = append([]Option{WithTable(table), WithLogger(quiet), WithLookupEnv(envOf(nil))}, opts...)
	d := NewDisposable(db, opts...)
	if err := d.EnsureSchema(testContext(t)); err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}
	return d
}
