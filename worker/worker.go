// Package worker hands a generator its worker ID: the middle field of every
// UID, unique to one running process across the whole fleet.
//
// A generator asks its Assigner once, at start-up. Static serves tests and
// single-node services; Disposable (MySQL) gives each process start a fresh
// ID from the AUTO_INCREMENT of a WORKER_NODE row, as Baidu's
// DisposableWorkerIdAssigner does, so two processes never share one and a
// restarted process never reuses its old one.
//
// The table's DDL is Baidu's WORKER_NODE.sql, shipped in this package:
// Schema returns it and EnsureSchema runs it, so a table made by the Java
// project serves this one and the other way round.
package worker

import (
	"context"
	"errors"
	"fmt"
)

// Assigner hands out the worker ID of this process.
//
// AssignWorkerID is called once, when a generator is built, and must honour
// ctx's deadline and cancellation. The ID must be non-negative and must not be
// in use by any other process generating IDs in the same space.
type Assigner interface {
	AssignWorkerID(ctx context.Context) (int64, error)
}

// Errors, each wrapped with the operation and the value at fault and tested
// with errors.Is. The driver's own error, when there is one, is wrapped too.
// A context's deadline or cancellation is reported wrapping ctx.Err(), so
// errors.Is(err, context.DeadlineExceeded) holds.
var (
	// ErrNegativeID: Static was given an ID below zero.
	ErrNegativeID = errors.New("worker: negative worker ID")

	// ErrNilDB: NewDisposable was given a nil *sql.DB.
	ErrNilDB = errors.New("worker: nil *sql.DB")

	// ErrBadTable: the table name given to WithTable or Schema is not a
	// plain SQL identifier.
	ErrBadTable = errors.New("worker: bad table name")

	// ErrContainerEnv: the environment names a container only by halves
	// (a host without a port, a port without a host, a Kubernetes pod
	// without HOSTNAME), or names it with a value too long for its column.
	ErrContainerEnv = errors.New("worker: incomplete container environment")

	// ErrNoHost: an actual host with neither a usable network address nor a
	// host name, so HOST_NAME can not be filled.
	ErrNoHost = errors.New("worker: no host address or name")

	// ErrUnreachable: the MySQL server could not be reached over the network.
	ErrUnreachable = errors.New("worker: MySQL server unreachable")

	// ErrAccessDenied: the server refused the user, its password or its
	// right to use the database or the table.
	ErrAccessDenied = errors.New("worker: MySQL access denied")

	// ErrNoTable: the WORKER_NODE table does not exist. EnsureSchema creates
	// it, or run the DDL that `uidgen schema` prints.
	ErrNoTable = errors.New("worker: WORKER_NODE table missing")

	// ErrNoAutoIncrement: the insert returned no AUTO_INCREMENT ID, so the
	// table's ID column is not Baidu's.
	ErrNoAutoIncrement = errors.New("worker: no AUTO_INCREMENT ID")
)

// Static returns an Assigner that always assigns id. It is the embedded
// default for tests and for a single process that owns its ID space; a fleet
// must not give two processes the same static ID.
//
// A negative id is reported as an error when the ID is assigned, wrapping
// ErrNegativeID.
func Static(id int64) Assigner { return static(id) }

type static int64

func (s static) AssignWorkerID(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("worker: assign static ID: %w", err)
	}
	if s < 0 {
		return 0, fmt.Errorf("%w: %d (must be 0 or more)", ErrNegativeID, int64(s))
	}
	return int64(s), nil
}
