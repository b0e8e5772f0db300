package worker

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dialect"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// Errors, tested with errors.Is. Every error this package returns starts
// "worker: ", names the operation and the value at fault, and wraps the
// driver's own error where there is one. A context's deadline or
// cancellation is reported wrapping ctx.Err(), so errors.Is(err,
// context.DeadlineExceeded) holds. The errors package segment returns too
// are the root package's: uidgen.ErrConfig for a Config this package cannot
// work with (a nil DB, another driver, an unknown Dialect, a table name that
// is not a plain identifier, a lease time out of its limits), naming the
// field, the value and the limits; uidgen.ErrUnreachable,
// uidgen.ErrAccessDenied and uidgen.ErrNoTable. Those below are this
// package's alone.
var (
	// ErrContainerEnv: the environment names a container only by halves
	// (a host without a port, a port without a host, a Kubernetes pod
	// without HOSTNAME), or names it with a value too long for its column.
	ErrContainerEnv = errors.New("incomplete container environment")

	// ErrNoHost: an actual host with neither a usable network address nor a
	// host name, so HOST_NAME can not be filled.
	ErrNoHost = errors.New("no host address or name")

	// ErrNoAutoIncrement: the insert returned no AUTO_INCREMENT ID, so the
	// table's ID column is not Baidu's.
	ErrNoAutoIncrement = errors.New("no AUTO_INCREMENT ID")

	// ErrNoLeaseColumns: the worker table lacks a column that leases need.
	// EnsureSchema adds them, or run the ALTER TABLE statements that
	// `uidgen schema` prints.
	ErrNoLeaseColumns = errors.New("worker table lacks the lease columns")
)

// Config says where the worker table is and how to reach it. NewDisposable,
// NewLeased, EnsureSchema and List take one; each reads the fields that
// concern it. Its zero value, but for DB, means the defaults.
type Config struct {
	// DB is the worker table's database. Required: a MySQL (or MariaDB)
	// database opened with go-sql-driver/mysql (sql.Open("mysql", dsn)),
	// a PostgreSQL one opened with pgx's stdlib (sql.Open("pgx", dsn)), or
	// a SQLite file opened with modernc.org/sqlite (sql.Open("sqlite",
	// dsn); docs/leases.md gives the DSN's settings).
	DB *sql.DB

	// Table is the worker table, a plain identifier (see Schema). Empty
	// means DefaultTable.
	Table string

	// Dialect names the SQL dialect, "mysql", "postgres" or "sqlite",
	// where DB's driver does not tell it: one of those wrapped in an
	// instrumenting driver of another package. Empty means the dialect is
	// read off the driver, and any driver but those is an error wrapping
	// uidgen.ErrConfig.
	Dialect string

	// LeaseTTL is how long a lease of NewLeased lasts without renewal: 30 s
	// if zero; 1 s to 1 h. The renewer renews every third of it (on SQLite
	// every second, where that is sooner), and a holder that died keeps its
	// ID from the fleet for at most this long; on SQLite, a holder whose
	// process is gone not even that. Only NewLeased reads it.
	LeaseTTL time.Duration

	// LeaseHorizon is how long a leased holder can go on without the database:
	// each renewal reserves the seconds it will use over the horizon and a
	// third of the TTL at its pace: 10 min if zero (a managed failover takes
	// minutes); 1 s to 24 h. On SQLite, with no failover to ride out, zero
	// means 2 s, so a crash leaves the ID reserved a few seconds ahead
	// (docs/leases.md). Only NewLeased reads it.
	LeaseHorizon time.Duration

	// WorkerIDs is the worker IDs a lease of NewLeased may take; the zero
	// range means every ID, 1 to the largest the generator's layout has.
	// A fleet that leases inside 512-1023 never touches 0-511, which
	// another fleet may hold (see uidgen.WorkerIDRange). Only NewLeased
	// reads it.
	WorkerIDs uidgen.WorkerIDRange

	// Logger is where each assigned or leased worker ID, each created table
	// or added column, and each release are logged, at level Info, and lost
	// leases and failing renewals, at level Warn. Nil means nothing is
	// logged.
	Logger *slog.Logger
}

// checked is a Config with its defaults filled in, and DB's dialect.
type checked struct {
	Config
	d *dialect.Dialect
}

// check fills in cfg's defaults and finds DB's dialect, without I/O. It
// fails, with an error wrapping uidgen.ErrConfig that names the field and
// the value, on a nil DB, another driver or an unknown Dialect and a table
// name that is not a plain identifier.
func (cfg Config) check() (checked, error) {
	cfg.Table = cmp.Or(cfg.Table, DefaultTable)
	d, err := dialect.ForTable(cfg.DB, cfg.Dialect, cfg.Table)
	if err != nil {
		return checked{}, fmt.Errorf("worker: %w", err)
	}
	horizon := leasing.DefaultHorizon
	if d == dialect.SQLite {
		horizon = leasing.FileHorizon
	}
	cfg.LeaseTTL = cmp.Or(cfg.LeaseTTL, leasing.DefaultTTL)
	cfg.LeaseHorizon = cmp.Or(cfg.LeaseHorizon, horizon)
	return checked{cfg, d}, nil
}
