package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/worker"
)

// dsnEnv names the environment variable that stands in for -dsn.
const dsnEnv = "UIDGEN_DSN"

// assignTimeout bounds getting a worker ID from MySQL: connecting, and
// creating the table if it is missing.
const assignTimeout = 10 * time.Second

// makerFlags are the flags of the commands that make IDs: the layout, and
// where the worker ID comes from.
type makerFlags struct {
	layout layoutFlags
	worker workerFlags
}

func (m *makerFlags) register(fs *flag.FlagSet) {
	m.layout.register(fs)
	m.worker.register(fs)
}

// config returns the generator config the flags describe and a func that
// releases what its Assigner holds.
func (m *makerFlags) config() (defaultgen.Config, func(), error) {
	assigner, release, err := m.worker.assigner()
	if err != nil {
		return defaultgen.Config{}, nil, err
	}
	cfg, err := m.layout.config(assigner)
	if err != nil {
		release()
		return defaultgen.Config{}, nil, err
	}
	return cfg, release, nil
}

// workerFlags are the flags of the commands that make IDs: where the worker
// ID comes from. A static ID by default; from MySQL's WORKER_NODE table with
// -dsn or $UIDGEN_DSN.
type workerFlags struct {
	fs    *flag.FlagSet
	id    int64
	dsn   string
	table string
}

func (w *workerFlags) register(fs *flag.FlagSet) {
	w.fs = fs
	fs.Int64Var(&w.id, "worker", 0, "static worker ID; no other process may use it with the same layout")
	fs.StringVar(&w.dsn, "dsn", os.Getenv(dsnEnv),
		"MySQL DSN: take a fresh worker ID from the WORKER_NODE table, creating it if missing (default $"+dsnEnv+")\n"+
			"e.g. 'root@tcp(127.0.0.1:3306)/test'")
	fs.StringVar(&w.table, "table", worker.DefaultTable, "worker table, with -dsn")
}

// assigner returns the Assigner the flags ask for and a func that releases
// what it holds.
func (w *workerFlags) assigner() (uidgen.Assigner, func(), error) {
	if w.dsn == "" {
		return uidgen.Static(w.id), func() {}, nil
	}
	if w.set("worker") {
		return nil, nil, fmt.Errorf("%w: -worker and -dsn both given: the worker ID comes from one or the other", errUsage)
	}
	db, err := sql.Open("mysql", w.dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: -dsn: %v", errUsage, err)
	}
	d, err := worker.NewDisposable(db, worker.WithTable(w.table))
	if err != nil {
		db.Close()
		return nil, nil, callerError{err}
	}
	return ensuringAssigner{d, db, w.table}, func() { db.Close() }, nil
}

func (w *workerFlags) set(name string) bool {
	found := false
	w.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// ensuringAssigner creates the worker table the first time it is found
// missing, so a newcomer's first -dsn run works on an empty database. It
// asks for CREATE only then: a user allowed to insert but not to create
// tables can use a table that exists.
type ensuringAssigner struct {
	d     *worker.Disposable
	db    *sql.DB
	table string
}

func (a ensuringAssigner) AssignWorkerID(ctx context.Context) (int64, error) {
	id, err := a.d.AssignWorkerID(ctx)
	if !errors.Is(err, worker.ErrNoTable) {
		return id, err
	}
	if err := worker.EnsureSchema(ctx, a.db, worker.WithTable(a.table)); err != nil {
		return 0, err
	}
	return a.d.AssignWorkerID(ctx)
}
