// Package dbtest points tests at the real database servers, MySQL (MariaDB)
// at $UIDGEN_MYSQL_DSN and PostgreSQL at $UIDGEN_POSTGRES_DSN, and at a
// SQLite file of the test's own, and gives each test tables and databases
// of its own that are dropped when it ends. Each runs a test once on every
// kind, from one body: so every case runs on all three, and there is one
// copy of it. Without a server's variable the test fails in CI, where
// .ci/run must provide it, and skips that server elsewhere, saying how to
// run it; SQLite needs nothing.
//
// Start starts a throwaway server instead, for tests that stop, kill or
// pause the database under a client.
//
// This directory's external tests (package dbtest_test) are also the
// library's tests that need real servers across packages: cached riding
// out outages and a failover, and metrics over segment generators. They
// live here rather than beside cached and metrics because `go mod tidy` in
// a program that imports a package loads that package's tests: beside
// cached, they would put both database drivers in every user's go.sum.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	"github.com/seed4d941b13/uidgen/internal/dialect"
	"github.com/seed4d941b13/uidgen/internal/sqlitedb"
)

// The variables that point the tests at the real servers, and what .ci/run
// sets them to.
const (
	MySQLEnv    = "UIDGEN_MYSQL_DSN"
	PostgresEnv = "UIDGEN_POSTGRES_DSN"

	MySQLDefault    = "root@tcp(127.0.0.1:3306)/test"
	PostgresDefault = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
)

// Kinds are the databases a test runs on, in order.
var Kinds = []string{"mysql", "postgres", "sqlite"}

// ServerKinds are the Kinds that run as servers, which Start can start,
// kill and pause.
var ServerKinds = Kinds[:2]

// Server is one database the tests talk to: on a server, or a SQLite file.
type Server struct {
	Kind string // "mysql", "postgres" or "sqlite": also the subtest's name
	// DSN is as the CLI's -dsn takes it: a MySQL DSN, a PostgreSQL URL or
	// a SQLite file: URI.
	DSN string
	// Path is the SQLite file, as the CLI's -db takes it; "" on a server.
	Path string

	readOnly bool // open Path read-only
	raw      bool // open DSN as it is, where sqlitedb.Open would make its directory
}

// Dialect returns the server's dialect.
func (s Server) Dialect() *dialect.Dialect {
	d, _ := dialect.Named(s.Kind)
	return d
}

// Remote reports whether the database is on a server, which a test can
// reach with the wrong user or at the wrong address.
func (s Server) Remote() bool { return s.Kind != "sqlite" }

// Each runs f as a subtest on each shared server, named by its kind.
func Each(t *testing.T, f func(t *testing.T, s Server)) {
	t.Helper()
	for _, kind := range Kinds {
		t.Run(kind, func(t *testing.T) { f(t, Shared(t, kind)) })
	}
}

// Shared returns the shared server of kind, named by its variable; without
// it the test fails in CI and skips elsewhere.
func Shared(t testing.TB, kind string) Server {
	t.Helper()
	if kind == "sqlite" {
		return sqliteFile(t)
	}
	env, example := MySQLEnv, MySQLDefault
	if kind == "postgres" {
		env, example = PostgresEnv, PostgresDefault
	}
	dsn := os.Getenv(env)
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is unset in CI: .ci/run must start the server and export it", env)
		}
		t.Skipf("needs a %s server: run %s='%s' go test ./... (or bash .ci/run)", kind, env, example)
	}
	s := Server{Kind: kind, DSN: dsn}
	if _, err := s.open(); err != nil {
		t.Fatalf("%s: %v", env, err)
	}
	return s
}

// sqliteFile returns a SQLite database in a new file of the test's own.
func sqliteFile(t testing.TB) Server {
	path := filepath.Join(t.TempDir(), "uidgen.db")
	return Server{Kind: "sqlite", DSN: sqlitedb.DSN(path, false), Path: path}
}

// open opens the server's database without connecting.
func (s Server) open() (*sql.DB, error) {
	switch s.Kind {
	case "sqlite":
		if s.raw {
			return sql.Open("sqlite", s.DSN)
		}
		return sqlitedb.Open(s.Path, s.readOnly)
	case "postgres":
		// stdlib.OpenDB would not show a bad URL until the first query.
		if _, err := url.Parse(s.DSN); err != nil {
			return nil, err
		}
		return sql.Open("pgx", s.DSN)
	}
	if _, err := mysql.ParseDSN(s.DSN); err != nil {
		return nil, err
	}
	return sql.Open("mysql", s.DSN)
}

// Open opens the server's database, closed when the test ends.
func (s Server) Open(t testing.TB) *sql.DB {
	t.Helper()
	db, err := s.open()
	if err != nil {
		t.Fatalf("open %s: %v", s.DSN, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// With returns the server as user with password, at addr (host:port), or
// in database name: each where not "".
func (s Server) With(user, password, addr, name string) Server {
	if !s.Remote() {
		panic("dbtest: With of a SQLite file, which has no user, address or database name")
	}
	if s.Kind == "postgres" {
		u, _ := url.Parse(s.DSN) // Shared parsed it
		if user != "" {
			u.User = url.UserPassword(user, password)
		}
		if addr != "" {
			u.Host = addr
		}
		if name != "" {
			u.Path = "/" + name
		}
		return Server{Kind: s.Kind, DSN: u.String()}
	}
	cfg, _ := mysql.ParseDSN(s.DSN)
	if user != "" {
		cfg.User, cfg.Passwd = user, password
	}
	if addr != "" {
		cfg.Net, cfg.Addr = "tcp", addr
	}
	if name != "" {
		cfg.DBName = name
	}
	return Server{Kind: s.Kind, DSN: cfg.FormatDSN()}
}

// Addr returns the server's host:port, "" for a SQLite file: where a
// proxy in front of it forwards.
func (s Server) Addr() string {
	switch s.Kind {
	case "sqlite":
		return ""
	case "postgres":
		u, _ := url.Parse(s.DSN) // Shared parsed it
		return u.Host
	}
	cfg, _ := mysql.ParseDSN(s.DSN)
	return cfg.Addr
}

// Refused is a database that refuses what a test asks of it, and what its
// error says.
type Refused struct {
	Server
	Says []string // in the error's message
}

// Denied returns s as a user that may not write: on a server, a user that
// does not exist; for SQLite, the file opened read-only.
func (s Server) Denied(t testing.TB) Refused {
	t.Helper()
	switch s.Kind {
	case "sqlite":
		s.Open(t).Close() // the file exists, as read-only opening needs
		return Refused{Server{Kind: s.Kind, DSN: sqlitedb.DSN(s.Path, true), Path: s.Path, readOnly: true}, []string{"readonly database"}}
	case "postgres":
		return Refused{s.With("uidgen_no_such_user", "wrong", "", ""), []string{"uidgen_no_such_user", "28000"}}
	}
	return Refused{s.With("uidgen_no_such_user", "wrong", "", ""), []string{"uidgen_no_such_user", "Access denied"}}
}

// Unreachable returns s where nothing answers: on a server, port 1 of
// 127.0.0.1; for SQLite, a file in a directory that does not exist.
func (s Server) Unreachable(t testing.TB) Refused {
	t.Helper()
	if s.Kind == "sqlite" {
		path := filepath.Join(t.TempDir(), "no-such-dir", "uidgen.db")
		return Refused{Server{Kind: s.Kind, DSN: sqlitedb.DSN(path, false), Path: path, raw: true}, []string{"unable to open"}}
	}
	return Refused{s.With("", "", "127.0.0.1:1", ""), []string{"127.0.0.1"}}
}

// UniqueName returns prefix and 16 random hex digits, a name no other test
// run uses.
func UniqueName(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// Table returns a table name of this test's own in db, with prefix, dropped
// when the test ends. The test creates the table.
func Table(t testing.TB, db *sql.DB, prefix string) string {
	t.Helper()
	name := UniqueName(prefix)
	t.Cleanup(func() {
		// A segment tag table comes with its table of numbers given back.
		for _, table := range []string{name, name + "_returned"} {
			if _, err := db.Exec("DROP TABLE IF EXISTS " + table); err != nil {
				t.Errorf("drop %s: %v", table, err)
			}
		}
	})
	return name
}

// Database creates a database of this test's own on s, dropped when the
// test ends, and returns it.
func (s Server) Database(t testing.TB) Server {
	t.Helper()
	if s.Kind == "sqlite" {
		return sqliteFile(t)
	}
	admin := s.Open(t)
	name := UniqueName("uidgen_test_")
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	drop := "DROP DATABASE " + name
	if s.Kind == "postgres" {
		drop += " WITH (FORCE)" // the test's own connections may still be open
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(drop); err != nil {
			t.Errorf("%s: %v", drop, err)
		}
	})
	return s.With("", "", "", name)
}

// Exec runs query, written with ? placeholders, on db in s's dialect, and
// fails the test on an error.
func (s Server) Exec(t testing.TB, db *sql.DB, query string, args ...any) sql.Result {
	t.Helper()
	res, err := db.Exec(s.Dialect().Rebind(query), args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return res
}

// Wrapped opens the server's database through a driver of this package that
// wraps the real one, as instrumenting drivers do, closed when the test
// ends: its dialect can not be read off the driver.
func (s Server) Wrapped(t testing.TB) *sql.DB {
	t.Helper()
	var c driver.Connector = dsnConnector{s.Open(t).Driver(), s.DSN}
	if dc, ok := c.Driver().(driver.DriverContext); ok {
		var err error
		if c, err = dc.OpenConnector(s.DSN); err != nil {
			t.Fatalf("open %s: %v", s.DSN, err)
		}
	}
	db := sql.OpenDB(wrappedConnector{c})
	t.Cleanup(func() { db.Close() })
	return db
}

// dsnConnector is database/sql's connector for a driver that has none of
// its own.
type dsnConnector struct {
	d   driver.Driver
	dsn string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.d }

type wrappedConnector struct{ driver.Connector }

func (c wrappedConnector) Driver() driver.Driver { return wrappedDriver{c.Connector.Driver()} }

type wrappedDriver struct{ driver.Driver }
