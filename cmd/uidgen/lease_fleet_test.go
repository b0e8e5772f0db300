package main

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/worker"
)

// The lease fleet tests run `uidgen gen -lease` as separate processes that
// start, finish, crash and pause around one worker table: package
// fleettest's scenarios, on each database server.

// sqlStore is a fleet test's worker table, of its own.
type sqlStore struct {
	db               *sql.DB
	dsn, path, table string
}

// sqlStores returns a fleettest.NewStore of worker tables on s.
func sqlStores(s dbtest.Server) fleettest.NewStore {
	return func(t *testing.T) fleettest.Store {
		db := s.Open(t)
		return sqlStore{db: db, dsn: s.DSN, path: s.Path, table: dbtest.Table(t, db, "WORKER_NODE_")}
	}
}

// Args leases from the table: on a server with -lease -dsn, and in a
// SQLite file as the command does by default, from -db.
func (s sqlStore) Args() []string {
	if s.path != "" {
		return []string{"-db", s.path, "-table", s.table}
	}
	return []string{"-lease", "-dsn", s.dsn, "-table", s.table}
}

// Quiet takes a SQLite file's write lock (fleettest.Quieter); a server's
// table needs none, and Quiet then does nothing.
func (s sqlStore) Quiet(t testing.TB) (release func()) {
	if s.path == "" {
		return func() {}
	}
	conn, err := s.db.Conn(context.Background())
	if err == nil {
		_, err = conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
	}
	if err != nil {
		t.Fatalf("take the write lock of %s: %v", s.path, err)
	}
	return func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
	}
}

func (s sqlStore) One(ctx context.Context) (held bool, reserved int64, err error) {
	rows, err := worker.List(ctx, worker.Config{DB: s.db, Table: s.table})
	if err != nil {
		return false, 0, err
	}
	if len(rows) != 1 || rows[0].ID != 1 {
		return false, 0, fmt.Errorf("the worker table %s holds %+v, want worker ID 1 alone", s.table, rows)
	}
	return rows[0].Held, rows[0].Reserved, nil
}

// eachFleet runs f on every database, as dbtest.Each does, but under
// -short on MySQL alone: a fleet of processes waits out lease TTLs and
// pauses, or reads a million numbers, through the same lease or segment
// code on each database, which the worker and segment packages' own
// tests check on all three in the fast loop too (docs/testing.md).
func eachFleet(t *testing.T, f func(t *testing.T, s dbtest.Server)) {
	t.Helper()
	if !testing.Short() {
		dbtest.Each(t, f)
		return
	}
	t.Run("mysql", func(t *testing.T) { f(t, dbtest.Shared(t, "mysql")) })
}

// TestLeaseReuse: fleettest.Reuse on a worker table.
func TestLeaseReuse(t *testing.T) {
	eachFleet(t, func(t *testing.T, s dbtest.Server) { fleettest.Reuse(t, sqlStores(s)) })
}

// TestLeaseCrash: fleettest.Crash on a worker table.
func TestLeaseCrash(t *testing.T) {
	eachFleet(t, func(t *testing.T, s dbtest.Server) { fleettest.Crash(t, sqlStores(s)) })
}

// TestLeasePause: fleettest.Pause on a worker table.
func TestLeasePause(t *testing.T) {
	eachFleet(t, func(t *testing.T, s dbtest.Server) { fleettest.Pause(t, sqlStores(s)) })
}
