// Package mysqltest points tests at the real MySQL (MariaDB) server named by
// $UIDGEN_MYSQL_DSN, and gives each test tables and databases of its own that
// are dropped when it ends. Without the variable a test fails in CI, where
// .ci/run must provide it, and skips elsewhere, saying how to run it.
//
// StartServer starts a throwaway server instead, for tests that stop, kill
// or pause the database under a client.
package mysqltest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// DSNEnv names the variable that points the tests at a real MySQL server.
const DSNEnv = "UIDGEN_MYSQL_DSN"

// Config returns the test server's DSN, parsed.
func Config(t testing.TB) *mysql.Config {
	t.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is unset in CI: .ci/run must start MariaDB and export it", DSNEnv)
		}
		t.Skipf("needs a MySQL server: run %s='root@tcp(127.0.0.1:3306)/test' go test ./... (or bash .ci/run)", DSNEnv)
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("%s: %v", DSNEnv, err)
	}
	return cfg
}

// Open opens cfg, closed when the test ends.
func Open(t testing.TB, cfg *mysql.Config) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatalf("open %s: %v", cfg.FormatDSN(), err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// DB opens the test server's database.
func DB(t testing.TB) *sql.DB {
	t.Helper()
	return Open(t, Config(t))
}

// UniqueName returns prefix and 16 random hex digits, a name no other test
// run uses.
func UniqueName(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// Table returns a table name of this test's own in db, dropped when the test
// ends. The test creates the table.
func Table(t testing.TB, db *sql.DB) string {
	t.Helper()
	name := UniqueName("WORKER_NODE_")
	t.Cleanup(func() {
		if _, err := db.Exec("DROP TABLE IF EXISTS " + name); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
	})
	return name
}

// Database creates a database of this test's own, dropped when it ends, and
// returns its config.
func Database(t testing.TB) *mysql.Config {
	t.Helper()
	cfg := Config(t)
	admin := Open(t, cfg)
	name := UniqueName("uidgen_test_")
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
	return cfg
}
