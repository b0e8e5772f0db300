// Package worker hands a generator its worker ID from a database table: the
// middle field of every UID, unique to one running process across the whole
// fleet.
//
// Disposable gives each process start a fresh ID, the AUTO_INCREMENT ID of a
// new WORKER_NODE row, as Baidu's DisposableWorkerIdAssigner does, so two
// processes never share one and a restarted process never reuses its old
// one. It is a uidgen.Assigner: pass it as a generator's Config.Assigner.
//
// The table's DDL is Baidu's WORKER_NODE.sql, shipped in this package:
// Schema returns it and EnsureSchema runs it, so a table made by the Java
// project serves this one and the other way round.
//
// The package talks to MySQL (or MariaDB) through database/sql with
// github.com/go-sql-driver/mysql, which it imports; open the *sql.DB with
// sql.Open("mysql", dsn). It logs nothing unless given a logger
// (WithLogger).
package worker

import (
	"errors"
	"log/slog"
	"os"
)

// Errors, tested with errors.Is. Every error this package returns starts
// "worker: ", names the operation and the value at fault, and wraps the
// driver's own error where there is one. A context's deadline or
// cancellation is reported wrapping ctx.Err(), so errors.Is(err,
// context.DeadlineExceeded) holds.
var (
	// ErrNilDB: a constructor was given a nil *sql.DB.
	ErrNilDB = errors.New("nil *sql.DB")

	// ErrBadTable: the table name given to WithTable or Schema is not a
	// plain SQL identifier.
	ErrBadTable = errors.New("bad table name")

	// ErrContainerEnv: the environment names a container only by halves
	// (a host without a port, a port without a host, a Kubernetes pod
	// without HOSTNAME), or names it with a value too long for its column.
	ErrContainerEnv = errors.New("incomplete container environment")

	// ErrNoHost: an actual host with neither a usable network address nor a
	// host name, so HOST_NAME can not be filled.
	ErrNoHost = errors.New("no host address or name")

	// ErrUnreachable: the database server could not be reached over the
	// network.
	ErrUnreachable = errors.New("database server unreachable")

	// ErrAccessDenied: the server refused the user, its password or its
	// right to use the database or the table.
	ErrAccessDenied = errors.New("database access denied")

	// ErrNoTable: the worker table does not exist. EnsureSchema creates
	// it, or run the DDL that `uidgen schema` prints.
	ErrNoTable = errors.New("worker table missing")

	// ErrNoAutoIncrement: the insert returned no AUTO_INCREMENT ID, so the
	// table's ID column is not Baidu's.
	ErrNoAutoIncrement = errors.New("no AUTO_INCREMENT ID")

	// ErrNoLeaseColumns: the worker table lacks a column that leases need.
	// EnsureSchema adds them, or run the ALTER TABLE statements that
	// `uidgen schema` prints.
	ErrNoLeaseColumns = errors.New("worker table lacks the lease columns")
)

// Option configures NewDisposable and EnsureSchema.
type Option func(*options)

// options are what the Options set, with their defaults.
type options struct {
	table     string // unchecked until the constructor reads it
	logger    *slog.Logger
	lookupEnv func(string) (string, bool)
}

func newOptions(opts []Option) options {
	o := options{table: DefaultTable, lookupEnv: os.LookupEnv}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithTable sets the worker table, DefaultTable by default (also for ""). The
// name must be a plain identifier, as Schema says; the constructor refuses
// any other with an error wrapping ErrBadTable.
func WithTable(name string) Option {
	return func(o *options) {
		if name != "" {
			o.table = name
		}
	}
}

// WithLogger sets where each assigned worker ID and each created table are
// logged, at level Info. By default (and for nil) nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// WithLookupEnv sets how environment variables are read, os.LookupEnv by
// default (also for nil). Tests and services that describe their node from
// configuration rather than the process environment supply their own.
func WithLookupEnv(lookup func(name string) (string, bool)) Option {
	return func(o *options) {
		if lookup != nil {
			o.lookupEnv = lookup
		}
	}
}
