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
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/leasing"
	"github.com/seed4d941b13/uidgen/worker"
)

// dsnEnv names the environment variable that stands in for -dsn.
const dsnEnv = "UIDGEN_DSN"

// assignTimeout bounds getting a worker ID from the database: connecting, and
// creating the table if it is missing.
const assignTimeout = 10 * time.Second

// serialMaxAhead is the MaxAhead of a generator whose IDs gen prints as
// Snowflake serials, where -max-ahead is not given: their date and time
// fields are the ID's, so none is dated more than a second past the clock
// when it is handed out.
const serialMaxAhead = time.Second

// makerFlags are the flags of the commands that make IDs: the layout, an
// older generator's ID to start above, and where the worker ID comes from;
// on those that hand the IDs out, how far ahead of the clock they may be.
type makerFlags struct {
	fs       *flag.FlagSet
	layout   layoutFlags
	after    int64
	worker   workerFlags
	maxAhead time.Duration // cached.Config.MaxAhead: -max-ahead, or the command's default
}

func (m *makerFlags) register(fs *flag.FlagSet, store leaseStore) {
	m.fs = fs
	m.layout.register(fs)
	fs.Int64Var(&m.after, "after", 0, "an ID of an older generator in the same layout: every ID made is above it,\nwhatever the clock says (0: none)")
	m.worker.register(fs, store)
}

// registerMaxAhead adds -max-ahead, on gen and serve, which hand their IDs
// out; bench's go to no one. byDefault says where a command bounds the
// IDs' time without it.
func (m *makerFlags) registerMaxAhead(fs *flag.FlagSet, byDefault string) {
	fs.DurationVar(&m.maxAhead, "max-ahead", 0, "the furthest ahead of the clock the cached generator may borrow ID time under load, a tick or more:\n"+
		"past 2^seq-bits IDs a tick, takes wait for the clock instead (0: no bound"+byDefault+")")
}

// config returns the generator config the flags describe and a func that
// releases what its Assigner or Leaser holds.
func (m *makerFlags) config() (cached.Config, func(), error) {
	if err := m.checkAfter(); err != nil {
		return cached.Config{}, nil, err
	}
	src, release, err := m.worker.source()
	if err != nil {
		return cached.Config{}, nil, err
	}
	cfg, err := m.layout.config(src)
	if err != nil {
		release()
		return cached.Config{}, nil, err
	}
	cfg.After, cfg.MaxAhead = m.after, m.maxAhead
	return cfg, release, nil
}

// static returns the generator config the flags describe with -worker's
// ID as a static one, remembered nowhere: bench's, whose IDs go to no one.
func (m *makerFlags) static() (cached.Config, error) {
	if err := m.checkAfter(); err != nil {
		return cached.Config{}, err
	}
	cfg, err := m.layout.config(idSource{assigner: uidgen.Static(m.worker.id)})
	cfg.After = m.after
	return cfg, err
}

func (m *makerFlags) checkAfter() error {
	if m.after < 0 {
		return fmt.Errorf("%w: -after %d: an ID is above 0", ErrUsage, m.after)
	}
	return nil
}

// open builds the generator called name (see openContender) from the
// config the flags describe; its close also releases what the Assigner or
// Leaser holds.
func (m *makerFlags) open(name string) (maker, error) {
	// -max-ahead 0 is the default, no bound, which every generator keeps.
	if name != "cached" && m.maxAhead != 0 && setFlag(m.fs, "max-ahead") != "" {
		return maker{}, fmt.Errorf("%w: -max-ahead with -generator %s: only the cached generator borrows ahead of the clock; "+
			"the default one waits for the next tick once a tick's IDs are spent", ErrUsage, name)
	}
	cfg, release, err := m.config()
	if err != nil {
		return maker{}, err
	}
	g, err := openContender(name, cfg)
	if err != nil {
		release()
		return maker{}, err
	}
	closeGen := g.close
	g.close = func() error {
		defer release()
		return closeGen()
	}
	return g, nil
}

// workerFlags are the flags of the commands that make IDs: where the worker
// ID comes from. By default a lease from the WORKER_NODE table of a SQLite
// file (-db), of -worker's ID where given, so that a restart starts above
// the time the last run used; from the table of -dsn or $UIDGEN_DSN, a
// fresh ID per run, or with -lease one that comes back; or leased from the
// leaseStore (etcd, Redis), when its flags choose it.
type workerFlags struct {
	fs      *flag.FlagSet
	id      int64
	db      string
	dsn     string
	table   string
	lease   bool
	ttl     time.Duration
	horizon time.Duration
	ids     workerIDsFlag
	store   storeFlags
}

// workerIDsFlag is -worker-ids: the uidgen.WorkerIDRange a lease takes
// its ID from, read as LO-HI.
type workerIDsFlag struct{ uidgen.WorkerIDRange }

func (f *workerIDsFlag) Set(s string) (err error) {
	f.WorkerIDRange, err = uidgen.ParseWorkerIDs(s)
	return err
}

// storeFlagNames are the flags of where the worker ID is kept: every flag
// register adds but -worker.
func (w *workerFlags) storeFlagNames() []string {
	return append([]string{"db", "dsn", "table", "lease", "lease-ttl", "lease-horizon", "worker-ids"}, w.store.names...)
}

// register adds the flags to fs, and store's.
func (w *workerFlags) register(fs *flag.FlagSet, store leaseStore) {
	w.fs = fs
	w.store.register(fs, store)
	with, limits := "with the -db file, -lease"+w.store.orStore(), " for -lease, the store's own for the store"
	fs.Int64Var(&w.id, "worker", 0, "this worker ID, leased from the -db file: a restart starts above the time the last run used,\n"+
		"and a second process asking for it while the first runs is refused (default: the lowest free ID from 1)")
	fs.StringVar(&w.dsn, "dsn", os.Getenv(dsnEnv),
		"take a fresh worker ID from the WORKER_NODE table in this database, creating the table if missing (default $"+dsnEnv+"):\n"+
			dsnHelp)
	dbFlag(fs, &w.db, dbMade)
	fs.StringVar(&w.table, "table", worker.DefaultTable, "worker table, in -dsn's database or the -db file")
	fs.BoolVar(&w.lease, "lease", false, "with -dsn: lease the lowest free worker ID, which comes back when done, instead of a fresh one")
	fs.DurationVar(&w.ttl, "lease-ttl", 0, fmt.Sprintf(
		"%s: how long the lease lasts unrenewed, so how soon a crashed process's ID comes back, %v to %v (0: %v)%s",
		with, leasing.MinTTL, leasing.MaxTTL, leasing.DefaultTTL, limits))
	fs.DurationVar(&w.horizon, "lease-horizon", 0, fmt.Sprintf(
		"%s: how long the process goes on without the database (a failover), %v to %v (0: %v; %v on the -db file)%s; a crashed process leaves its ID reserved this far ahead",
		with, leasing.MinHorizon, leasing.MaxHorizon, leasing.DefaultHorizon, leasing.FileHorizon, limits))
	fs.Var(&w.ids, "worker-ids", with+": lease only worker IDs `LO-HI`, e.g. 512-1023, leaving the others to another fleet"+
		" (Twitter's datacenter d: 32d to 32d+31); HI at most the layout's largest worker ID (default: 1 to the largest)")
}

// idSource is where a generator's worker ID comes from: an Assigner or a
// Leaser, the other nil, as a generator's Config takes them.
type idSource struct {
	assigner uidgen.Assigner
	leaser   uidgen.Leaser
}

// source returns the Assigner or Leaser the flags ask for and a func that
// releases what it holds.
func (w *workerFlags) source() (idSource, func(), error) {
	if err := w.store.fromEnv(&w.dsn, "worker", "dsn"); err != nil {
		return idSource{}, nil, err
	}
	if w.store.Chosen() {
		if err := w.store.conflict("the worker ID is leased from the store", "worker", "dsn", "table", "lease", "db"); err != nil {
			return idSource{}, nil, err
		}
		l, release, err := w.store.Leaser(w.ttl, w.horizon, w.ids.WorkerIDRange)
		return idSource{leaser: l}, release, err
	}
	dsn, embedded, err := w.database()
	if err != nil {
		return idSource{}, nil, err
	}
	lease := w.lease || embedded
	ids, err := w.leaseRange(lease, embedded)
	if err != nil {
		return idSource{}, nil, err
	}
	return w.tableSource(dsn, lease, ids)
}

// leaseRange refuses the lease flags where the worker ID is not leased
// (lease), and -worker but from the -db file (embedded), and returns the
// range a lease takes its ID from: -worker's one ID where given, else
// -worker-ids'.
func (w *workerFlags) leaseRange(lease, embedded bool) (uidgen.WorkerIDRange, error) {
	for _, name := range []string{"lease-ttl", "lease-horizon", "worker-ids"} {
		if w.set(name) && !lease {
			return uidgen.WorkerIDRange{}, fmt.Errorf("%w: -%s needs -lease%s: only a leased worker ID expires, reserves ahead and comes from a range", ErrUsage, name, w.store.orStore())
		}
	}
	if !w.set("worker") {
		return w.ids.WorkerIDRange, nil
	}
	switch {
	case !embedded:
		return uidgen.WorkerIDRange{}, fmt.Errorf("%w: -worker and -dsn both given: the worker ID comes from one or the other", ErrUsage)
	case w.set("worker-ids"):
		return uidgen.WorkerIDRange{}, fmt.Errorf("%w: -worker and -worker-ids both given: the worker ID is -worker's", ErrUsage)
	case w.id < 1:
		return uidgen.WorkerIDRange{}, fmt.Errorf("%w: -worker %d: a leased worker ID is 1 or more", ErrUsage, w.id)
	}
	return uidgen.WorkerIDRange{Min: w.id, Max: w.id}, nil
}

// tableSource opens dsn's database and returns a Leaser of its worker
// table's IDs in ids where lease, else an Assigner of fresh ones, and a
// func that closes the database.
func (w *workerFlags) tableSource(dsn string, lease bool, ids uidgen.WorkerIDRange) (idSource, func(), error) {
	db, err := openDB(dsn)
	if err != nil {
		return idSource{}, nil, err
	}
	release := func() { db.Close() }
	schema := ensuring{db, w.table}
	if lease {
		l, err := worker.NewLeased(worker.Config{DB: db, Table: w.table, LeaseTTL: w.ttl, LeaseHorizon: w.horizon,
			WorkerIDs: ids})
		if err != nil {
			db.Close()
			return idSource{}, nil, callerError{err}
		}
		return idSource{leaser: ensuringLeaser{l, schema}}, release, nil
	}
	d, err := worker.NewDisposable(worker.Config{DB: db, Table: w.table})
	if err != nil {
		db.Close()
		return idSource{}, nil, callerError{err}
	}
	return idSource{assigner: ensuringAssigner{d, schema}}, release, nil
}

// database returns the DSN of the database that the worker ID comes from:
// -dsn's, or where none is given the SQLite file of -db (embedded), whose
// worker IDs are always leased.
func (w *workerFlags) database() (dsn string, embedded bool, err error) {
	if w.dsn != "" {
		if w.set("db") {
			return "", false, fmt.Errorf("%w: -db and -dsn both given: %v", ErrUsage, errNoDB)
		}
		return w.dsn, false, nil
	}
	dsn, err = embeddedDSN(w.db)
	return dsn, true, err
}

// tagDSN returns the DSN of the database that segment tags are kept in:
// -dsn's, or where none is given the SQLite file of -db; "" where a
// store's flags choose etcd or Redis, which keep no tags.
func (w *workerFlags) tagDSN() (string, error) {
	if err := w.store.fromEnv(&w.dsn, "worker", "dsn"); err != nil {
		return "", err
	}
	if w.store.Chosen() {
		return "", nil
	}
	dsn, _, err := w.database()
	return dsn, err
}

func (w *workerFlags) set(name string) bool {
	found := false
	w.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// ensuring creates the worker table, or adds its lease columns, the first
// time they are found missing, so a newcomer's first -dsn run works on an
// empty database. It asks for CREATE and ALTER only then: a user allowed to
// write rows but not to change tables can use a table that is up to date.
type ensuring struct {
	db    *sql.DB
	table string
}

// again runs do, and once more after EnsureSchema where do found the table
// or its lease columns missing.
func (e ensuring) again(ctx context.Context, do func() error) error {
	err := do()
	if !errors.Is(err, uidgen.ErrNoTable) && !errors.Is(err, worker.ErrNoLeaseColumns) {
		return err
	}
	if err := worker.EnsureSchema(ctx, worker.Config{DB: e.db, Table: e.table}); err != nil {
		return err
	}
	return do()
}

// ensuringAssigner is a Disposable that creates its table when missing.
type ensuringAssigner struct {
	d *worker.Disposable
	ensuring
}

func (a ensuringAssigner) AssignWorkerID(ctx context.Context) (id int64, err error) {
	err = a.again(ctx, func() error {
		id, err = a.d.AssignWorkerID(ctx)
		return err
	})
	return id, err
}

// ensuringLeaser is a Leased that creates its table, or adds the lease
// columns, when missing.
type ensuringLeaser struct {
	*worker.Leased
	ensuring
}

func (l ensuringLeaser) LeaseWorkerID(ctx context.Context, maxWorkerID int64) (lease uidgen.Lease, err error) {
	err = l.again(ctx, func() error {
		lease, err = l.Leased.LeaseWorkerID(ctx, maxWorkerID)
		return err
	})
	return lease, err
}
