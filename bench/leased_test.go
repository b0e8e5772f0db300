package bench

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
	"github.com/seed4d941b13/uidgen/worker"
)

// The leased benchmarks measure what a worker ID leased from MariaDB, from
// PostgreSQL and from a SQLite file costs the cached generator: its takes,
// beside a static worker ID's in the same run, the statements its lease
// sends to the database, flat out and idle, and what a renewal of the lease
// costs each database. They count statements on the client, in a
// driver.Connector that wraps the driver's, rather than with the servers'
// counters: the servers are shared, and their counters count every
// client's statements.

// database is a database the benchmarks lease from and claim on: a server
// at the DSN in the variable env, or at dsn where env is unset; or, of kind
// "sqlite" with neither, a SQLite file of the benchmark's own.
type database struct{ kind, env, dsn string }

// databases are the tests' servers and a SQLite file, opened with the DSN
// internal/sqlitedb gives it (WAL, synchronous=FULL, busy_timeout).
var databases = []database{
	{"mysql", dbtest.MySQLEnv, dbtest.MySQLDefault},
	{"postgres", dbtest.PostgresEnv, dbtest.PostgresDefault},
	{kind: "sqlite"},
}

// connector returns a connector to d: to a server with a short connect
// timeout, or to a new SQLite file in a directory removed when the
// benchmark ends.
func (d database) connector(b *testing.B) driver.Connector {
	switch d.kind {
	case "sqlite":
		c, err := sqlite.NewConnector(dbtest.Shared(b, "sqlite").DSN)
		if err != nil {
			b.Fatal(err)
		}
		return c
	case "postgres":
		cfg, err := pgx.ParseConfig(cmp.Or(os.Getenv(d.env), d.dsn))
		if err != nil {
			b.Fatalf("%s: %v", d.env, err)
		}
		cfg.ConnectTimeout = 2 * time.Second
		return stdlib.GetConnector(*cfg)
	}
	cfg, err := mysql.ParseDSN(cmp.Or(os.Getenv(d.env), d.dsn))
	if err != nil {
		b.Fatalf("%s: %v", d.env, err)
	}
	cfg.Timeout = 2 * time.Second
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// countedDB opens d through a connector that counts every statement sent,
// closed when the benchmark ends. It skips the benchmark when a server
// does not answer.
func countedDB(b *testing.B, d database) (*sql.DB, *atomic.Int64) {
	statements := new(atomic.Int64)
	db := sql.OpenDB(countingConnector{d.connector(b), statements})
	b.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		if d.env == "" {
			b.Fatal(err) // a file of the benchmark's own: nothing to wait for
		}
		b.Skipf("needs %s (set %s): %v", d.kind, d.env, err)
	}
	return db, statements
}

// leasedDB opens d as countedDB does, and gives it a worker table of its
// own, dropped when the benchmark ends.
func leasedDB(b *testing.B, d database) (db *sql.DB, table string, statements *atomic.Int64) {
	db, statements = countedDB(b, d)
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	table = "WORKER_NODE_bench_" + rand.Text()
	if err := worker.EnsureSchema(ctx, worker.Config{DB: db, Table: table}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if _, err := db.Exec("DROP TABLE " + table); err != nil {
			b.Errorf("drop %s: %v", table, err)
		}
	})
	return db, table, statements
}

// openLeased returns a cached generator with the defaults on a worker ID
// leased with the defaults from d, closed when the benchmark ends, and the
// count of statements sent to the database.
func openLeased(b *testing.B, d database) (*cached.Generator, *atomic.Int64) {
	db, table, statements := leasedDB(b, d)
	l, err := worker.NewLeased(worker.Config{DB: db, Table: table})
	if err != nil {
		b.Fatal(err)
	}
	return openWith(b, cached.Config{Leaser: l}), statements
}

// openWith returns a cached generator of cfg, which names only where the
// worker ID comes from, closed when the benchmark ends.
func openWith(b *testing.B, cfg cached.Config) *cached.Generator {
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	g, err := cached.New(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := g.Close(); err != nil {
			b.Error(err)
		}
	})
	return g
}

// BenchmarkLeased takes IDs flat out from one goroutine of a cached
// generator with the defaults, its worker ID static and then leased from
// each database, so that they alternate within a run and its -count rounds.
// The leased ones also report the statements a second their lease sent
// meanwhile.
func BenchmarkLeased(b *testing.B) {
	b.Run("assigner=static", func(b *testing.B) {
		serial(b, openWith(b, cached.Config{Assigner: uidgen.Static(1)}).NextID)
	})
	for _, d := range databases {
		b.Run("assigner=leased-"+d.kind, func(b *testing.B) {
			g, statements := openLeased(b, d)
			before := statements.Load()
			serial(b, g.NextID)
			if s := b.Elapsed().Seconds(); s > 0 {
				b.ReportMetric(float64(statements.Load()-before)/s, "stmts/s")
			}
		})
	}
}

// BenchmarkLeasedIdle measures the statements a second of an idle
// generator's lease on each database: each op waits for the next statement
// its renewer sends, a renewal every third of the default TTL. Each op
// takes seconds: run it with -benchtime 1x or a few x.
func BenchmarkLeasedIdle(b *testing.B) {
	for _, d := range databases {
		b.Run("db="+d.kind, func(b *testing.B) {
			g, statements := openLeased(b, d)
			if _, err := g.NextID(); err != nil {
				b.Fatal(err)
			}
			// The renewer's first pace runs from the lease, just before:
			// the filled ring holds fewer seconds than the half TTL ahead
			// that would wake it early.
			b.ResetTimer()
			for range b.N {
				waitStatement(b, statements, leasing.DefaultTTL)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "stmts/s")
		})
	}
}

// BenchmarkRenew renews a worker ID's lease on each database back to back:
// each op has the lease's renewer send one renewal, the UPDATE of the
// lease's row that extends it and its reservation (its Store's Extend),
// and waits for it, so ns/op is a renewal's round trip and commit. It also
// reports the renewals and statements a second.
func BenchmarkRenew(b *testing.B) {
	for _, d := range databases {
		b.Run("db="+d.kind, func(b *testing.B) {
			db, table, statements := leasedDB(b, d)
			lease := leaseID(b, worker.Config{DB: db, Table: table})
			// The renewer's own method, for tests: the lease would renew
			// by itself only every third of the TTL, or as a holder asks
			// for seconds.
			r := lease.(interface{ RenewNow(context.Context) error })
			before := statements.Load()
			b.ReportAllocs()
			for b.Loop() {
				if err := r.RenewNow(b.Context()); err != nil {
					b.Fatal(err)
				}
			}
			if s := b.Elapsed().Seconds(); s > 0 {
				b.ReportMetric(float64(b.N)/s, "renewals/s")
				b.ReportMetric(float64(statements.Load()-before)/s, "stmts/s")
			}
		})
	}
}

// leaseID leases a worker ID of cfg's table, released when the benchmark
// ends.
func leaseID(b *testing.B, cfg worker.Config) uidgen.Lease {
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	l, err := worker.NewLeased(cfg)
	if err != nil {
		b.Fatal(err)
	}
	lease, err := l.LeaseWorkerID(ctx, 1) // the table is new: ID 1 is free
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := lease.Release(context.Background(), lease.First()-1); err != nil {
			b.Error(err)
		}
	})
	return lease
}

// waitStatement waits until statements grows, for at most limit.
func waitStatement(b *testing.B, statements *atomic.Int64, limit time.Duration) {
	n := statements.Load()
	deadline := time.Now().Add(limit)
	for statements.Load() == n {
		if time.Now().After(deadline) {
			b.Fatalf("no statement for %v", limit)
		}
		time.Sleep(time.Millisecond) // polls a counter; the deadline bounds it
	}
}

// countingConnector counts the statements its connections send: each
// statement executed, whether directly or prepared.
type countingConnector struct {
	driver.Connector
	n *atomic.Int64
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	counting := countingConn{conn.(fullConn), c.n}
	if checker, ok := conn.(driver.NamedValueChecker); ok {
		return checkingConn{counting, checker}, nil
	}
	return counting, nil
}

// fullConn is what database/sql uses of the three drivers' connections to
// send statements: a wrapper that drops one of these interfaces changes
// how statements are sent. (driver.Validator, which MySQL's and SQLite's
// have, decides only whether a pooled connection is reused.)
type fullConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
}

// checkingConn is a countingConn of a driver whose connections check their
// own arguments, as MySQL's and pgx's do and SQLite's does not: database/sql
// converts them with driver.DefaultParameterConverter otherwise.
type checkingConn struct {
	countingConn
	driver.NamedValueChecker
}

type countingConn struct {
	fullConn
	n *atomic.Int64
}

// counted counts a statement sent, unless err is driver.ErrSkip: then the
// driver sent none, and database/sql prepares the statement instead.
func (c countingConn) counted(err error) {
	if !errors.Is(err, driver.ErrSkip) {
		c.n.Add(1)
	}
}

func (c countingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.fullConn.ExecContext(ctx, query, args)
	c.counted(err)
	return r, err
}

func (c countingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.fullConn.QueryContext(ctx, query, args)
	c.counted(err)
	return r, err
}

// PrepareContext counts a statement: database/sql prepares one after
// driver.ErrSkip, executes it once and closes it, and package worker
// prepares no statement of its own to run more often.
func (c countingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.n.Add(1)
	return c.fullConn.PrepareContext(ctx, query)
}
