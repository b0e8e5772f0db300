package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dialect"
)

// Disposable is a uidgen.Assigner that gives every call a fresh worker ID:
// the AUTO_INCREMENT (on PostgreSQL, identity) ID of one new row in the
// worker table, as Baidu's DisposableWorkerIdAssigner does. IDs are never
// reused, so a restarted process can not collide with its former self even
// if the clock went back.
//
// The row describes the process; the environment is read at each call, and
// a blank variable counts as unset:
//
//   - JPAAS_HOST with JPAAS_HTTP_PORT (or, where that is unset,
//     JPAAS_HOST_PORT_8080): TYPE CONTAINER, HOST_NAME and PORT those
//     values. One without the other is an error wrapping ErrContainerEnv.
//   - Otherwise, KUBERNETES_SERVICE_HOST (set in every Kubernetes pod):
//     TYPE CONTAINER, HOST_NAME the pod's address from POD_IP (expose it
//     with the downward API's status.podIP), or where that is unset the
//     address found as for an actual host; PORT the pod's name from
//     HOSTNAME. A pod without HOSTNAME is an error wrapping ErrContainerEnv.
//   - Otherwise TYPE ACTUAL, HOST_NAME the first network address that is
//     neither loopback nor link-local (the host name where there is none),
//     PORT "<Unix milliseconds>-<random number below 100000>".
//
// A container value longer than its VARCHAR(64) column is an error wrapping
// ErrContainerEnv. LAUNCH_DATE is today's date in the process's local zone,
// as Java's java.util.Date gives it. The row is a record for people: the ID
// alone makes the worker unique.
//
// A Disposable holds no connection of its own and is safe for concurrent
// use; every AssignWorkerID inserts a row of its own.
type Disposable struct {
	db     *sql.DB
	d      *dialect.Dialect
	table  string
	logger *slog.Logger // nil: quiet
	host   host
	now    func() time.Time // replaced by tests
}

// NewDisposable returns a Disposable that inserts into cfg.Table of cfg.DB.
// It sends nothing yet. It fails, with an error wrapping uidgen.ErrConfig
// that names the field and the value, on a nil DB, another driver or an
// unknown Dialect or a table name that is not a plain identifier.
func NewDisposable(cfg Config) (*Disposable, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	return &Disposable{db: c.DB, d: c.d, table: c.Table, logger: c.Logger, host: systemHost(c.d), now: time.Now}, nil
}

// AssignWorkerID inserts one row describing this process into the table and
// returns the ID the table gave it, which is 1 or more. The insert runs under
// ctx: give it a deadline, since a server that does not answer is otherwise
// waited for as long as the operating system waits for a connection.
//
// Every failure names the operation and the table and wraps the driver's
// error, and where the cause is known one of:
//
//   - ErrContainerEnv, ErrNoHost: the process could not be described;
//   - ctx.Err(): the deadline passed or ctx was cancelled;
//   - uidgen.ErrUnreachable: the server could not be reached;
//   - uidgen.ErrAccessDenied: the server refused the user or the insert;
//   - uidgen.ErrNoTable: the table is missing; EnsureSchema creates it;
//   - ErrNoAutoIncrement: the table's ID column is not AUTO_INCREMENT (on
//     PostgreSQL, an identity column).
func (d *Disposable) AssignWorkerID(ctx context.Context) (int64, error) {
	now := d.now()
	n, err := d.host.describe(now)
	if err != nil {
		return 0, fmt.Errorf("worker: describe this process: %w", err)
	}
	op := "insert row into " + d.table
	id, err := d.insert(ctx, n, now)
	if err != nil {
		return 0, fail(ctx, d.d, op, err)
	}
	if id <= 0 {
		return 0, fmt.Errorf("worker: %s: %w: the insert returned ID %d (want the ID column that Schema has)",
			op, ErrNoAutoIncrement, id)
	}
	if d.logger != nil {
		d.logger.InfoContext(ctx, "worker: assigned worker ID", "id", id, "table", d.table,
			"type", n.typ, "host", n.host, "port", n.port)
	}
	return id, nil
}

// insertSQL inserts one row describing a process, with the ID the table
// gives it.
const insertSQL = " (HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"

// insert inserts the row of n and returns its ID. LAUNCH_DATE goes as text
// so the driver's time zone (UTC unless the DSN says otherwise) can not
// move it to another day.
func (d *Disposable) insert(ctx context.Context, n node, now time.Time) (int64, error) {
	args := []any{n.host, n.port, int(n.typ), now.Format(time.DateOnly)}
	// AUTO_INCREMENT, and SQLite's AUTOINCREMENT, move past the IDs that
	// leases insert explicitly.
	switch d.d {
	case dialect.MySQL:
		res, err := d.db.ExecContext(ctx, "INSERT INTO "+d.table+insertSQL, args...)
		if err != nil {
			return 0, err
		}
		return res.LastInsertId()
	case dialect.SQLite:
		// RETURNING, not LastInsertId, which is the rowid: the ID itself
		// only where the ID column is the INTEGER PRIMARY KEY.
		var id int64
		err := d.db.QueryRowContext(ctx, "INSERT INTO "+d.table+insertSQL+" RETURNING ID", args...).Scan(&id)
		return id, err
	}
	// A PostgreSQL identity column, unlike AUTO_INCREMENT, does not move
	// past the IDs that leases insert explicitly, so its next value may be
	// taken: then the sequence is moved to the largest ID and the insert
	// tried again. The primary key refuses a taken ID whatever the race.
	for {
		var id int64
		err := d.db.QueryRowContext(ctx, d.d.Rebind("INSERT INTO "+d.table+insertSQL+" ON CONFLICT (ID) DO NOTHING RETURNING ID"),
			args...).Scan(&id)
		if !errors.Is(err, sql.ErrNoRows) {
			return id, err
		}
		if err := d.moveSequence(ctx); err != nil {
			return 0, err
		}
	}
}

// moveSequence moves a PostgreSQL table's ID sequence to its largest ID,
// past the IDs that leases inserted.
func (d *Disposable) moveSequence(ctx context.Context) error {
	var moved sql.NullInt64
	// GREATEST: never move the sequence back, below IDs it gave out whose
	// rows are gone.
	err := d.db.QueryRowContext(ctx, "SELECT setval(q.s, GREATEST((SELECT MAX(ID) FROM "+d.table+"),"+
		" COALESCE(pg_sequence_last_value(q.s::regclass), 0))) FROM (SELECT pg_get_serial_sequence('"+d.table+"', 'id') AS s) q").
		Scan(&moved)
	if err != nil {
		return err
	}
	if !moved.Valid {
		return fmt.Errorf("%w: the ID the table gave is taken, and its ID column has no sequence (want ID BIGINT GENERATED BY DEFAULT AS IDENTITY, as Schema has it)",
			ErrNoAutoIncrement)
	}
	return nil
}

// fail wraps err, the driver's answer to op, with the sentinel that names its
// cause, prefixed for an exported function to return.
func fail(ctx context.Context, d *dialect.Dialect, op string, err error) error {
	return fmt.Errorf("worker: %s: %w", op, cause(ctx, d, err))
}

// cause wraps err, the driver's answer to a statement sent under ctx, with
// the sentinel that names its cause, unprefixed.
func cause(ctx context.Context, d *dialect.Dialect, err error) error {
	return d.Explain(ctx, err, hints(d))
}

// hints returns the failures of the worker table that this package names,
// with fixes in d's dialect.
func hints(d *dialect.Dialect) map[dialect.Kind]dialect.Hint {
	schema := "`" + d.SchemaCommand("") + "`"
	return map[dialect.Kind]dialect.Hint{
		dialect.NoTable:    {Err: uidgen.ErrNoTable, Fix: "create the table with worker.EnsureSchema or the DDL that " + schema + " prints"},
		dialect.NoColumn:   {Err: ErrNoLeaseColumns, Fix: "add them with worker.EnsureSchema or the ALTER TABLE statements that " + schema + " prints"},
		dialect.NullColumn: {Err: ErrNoAutoIncrement, Fix: "want the ID column that Schema has"},
	}
}
