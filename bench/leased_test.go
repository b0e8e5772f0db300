package bench

import (
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

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/worker"
)

// The leased benchmarks measure what a worker ID leased from MariaDB and
// from PostgreSQL costs the cached generator: its takes, beside a static
// worker ID's in the same run, and the statements its lease sends to the
// database, flat out and idle. They count statements on the client, in a
// driver.Connector that wraps the driver's, rather than with the servers'
// counters: the servers are shared, and their counters count every
// client's statements.

// servers are the databases the leased benchmarks lease from: the tests'
// servers, at the DSN in each variable or at its default.
var servers = []struct{ kind, env, dsn string }{
	{"mysql", dbtest.MySQLEnv, dbtest.MySQLDefault},
	{"postgres", dbtest.PostgresEnv, dbtest.PostgresDefault},
}

// connector returns a connector to the server of kind, with a short connect
// timeout.
func connector(b *testing.B, kind, env, dsn string) driver.Connector {
	if v := os.Getenv(env); v != "" {
		dsn = v
	}
	if kind == "postgres" {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			b.Fatalf("%s: %v", env, err)
		}
		cfg.ConnectTimeout = 2 * time.Second
		return stdlib.GetConnector(*cfg)
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		b.Fatalf("%s: %v", env, err)
	}
	cfg.Timeout = 2 * time.Second
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// leasedDB opens the server of kind through a connector that counts every
// statement sent, and gives it a worker table of its own, dropped when the
// benchmark ends. It skips the benchmark when the database does not answer.
func leasedDB(b *testing.B, kind, env, dsn string) (db *sql.DB, table string, statements *atomic.Int64) {
	statements = new(atomic.Int64)
	db = sql.OpenDB(countingConnector{connector(b, kind, env, dsn), statements})
	b.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(b.Context(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		b.Skipf("needs %s (set %s): %v", kind, env, err)
	}
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
// leased with the defaults from the server of kind, closed when the
// benchmark ends, and the count of statements sent to the database.
func openLeased(b *testing.B, kind, env, dsn string) (*cached.Generator, *atomic.Int64) {
	db, table, statements := leasedDB(b, kind, env, dsn)
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
// each server, so that they alternate within a run and its -count rounds.
// The leased ones also report the statements a second their lease sent
// meanwhile.
func BenchmarkLeased(b *testing.B) {
	b.Run("assigner=static", func(b *testing.B) {
		serial(b, openWith(b, cached.Config{Assigner: uidgen.Static(1)}).NextID)
	})
	for _, srv := range servers {
		b.Run("assigner=leased-"+srv.kind, func(b *testing.B) {
			g, statements := openLeased(b, srv.kind, srv.env, srv.dsn)
			before := statements.Load()
			serial(b, g.NextID)
			if s := b.Elapsed().Seconds(); s > 0 {
				b.ReportMetric(float64(statements.Load()-before)/s, "stmts/s")
			}
		})
	}
}

// BenchmarkLeasedIdle measures the statements a second of an idle
// generator's lease on each server: each op waits for the next statement
// its renewer sends, a renewal every third of the default TTL. Each op
// takes seconds: run it with -benchtime 1x or a few x.
func BenchmarkLeasedIdle(b *testing.B) {
	for _, srv := range servers {
		b.Run("db="+srv.kind, func(b *testing.B) {
			g, statements := openLeased(b, srv.kind, srv.env, srv.dsn)
			if _, err := g.NextID(); err != nil {
				b.Fatal(err)
			}
			// The renewer's first pace runs from the lease, just before:
			// the filled ring holds fewer seconds than the half TTL ahead
			// that would wake it early.
			b.ResetTimer()
			for range b.N {
				waitStatement(b, statements, worker.DefaultLeaseTTL)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "stmts/s")
		})
	}
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
	return countingConn{conn.(fullConn), c.n}, nil
}

// fullConn is what database/sql uses of both drivers' connections to send
// statements: a wrapper that drops one of these interfaces changes how
// statements are sent. (driver.Validator, which only MySQL's has, decides
// only whether a pooled connection is reused.)
type fullConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
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
