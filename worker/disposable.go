package worker

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MySQL error numbers that name a cause the caller can act on.
const (
	errDBAccessDenied       = 1044 // ER_DBACCESS_DENIED_ERROR: user may not use the database
	errAccessDenied         = 1045 // ER_ACCESS_DENIED_ERROR: unknown user or wrong password
	errTableAccessDenied    = 1142 // ER_TABLEACCESS_DENIED_ERROR: user may not INSERT or CREATE
	errNoSuchTable          = 1146 // ER_NO_SUCH_TABLE
	errBadField             = 1054 // ER_BAD_FIELD_ERROR: a column is missing
	errDupFieldName         = 1060 // ER_DUP_FIELDNAME: the column exists already
	errDupEntry             = 1062 // ER_DUP_ENTRY: a row has that key already
	errAccessDeniedNoPasswd = 1698 // ER_ACCESS_DENIED_NO_PASSWORD_ERROR: MariaDB's answer to an unknown user
)

// Disposable is a uidgen.Assigner that gives every call a fresh worker ID:
// the AUTO_INCREMENT ID of one new row in the worker table, as Baidu's
// DisposableWorkerIdAssigner does. IDs are never reused, so a restarted
// process can not collide with its former self even if the clock went back.
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
	table  string
	logger *slog.Logger // nil: quiet
	host   host
	now    func() time.Time // replaced by tests
}

// NewDisposable returns a Disposable that inserts into db, a MySQL (or
// MariaDB) database opened with sql.Open("mysql", dsn). It sends nothing yet.
// It fails, with an error that names the value, on a nil db (ErrNilDB) or a
// table name that is not a plain identifier (ErrBadTable).
func NewDisposable(db *sql.DB, opts ...Option) (*Disposable, error) {
	o := newOptions(opts)
	table, err := checkDB(db, o.table)
	if err != nil {
		return nil, err
	}
	return &Disposable{db: db, table: table, logger: o.logger, host: systemHost(o.lookupEnv), now: time.Now}, nil
}

// checkDB returns table if db and table can be used, and otherwise the
// error the constructors return.
func checkDB(db *sql.DB, table string) (string, error) {
	if db == nil {
		return "", fmt.Errorf("worker: %w: the constructor was given none", ErrNilDB)
	}
	if err := checkTable(table); err != nil {
		return "", fmt.Errorf("worker: %w", err)
	}
	return table, nil
}

// AssignWorkerID inserts one row describing this process into the table and
// returns its AUTO_INCREMENT ID, which is 1 or more. The insert runs under
// ctx: give it a deadline, since a server that does not answer is otherwise
// waited for as long as the operating system waits for a connection.
//
// Every failure names the operation and the table and wraps the driver's
// error, and where the cause is known one of:
//
//   - ErrContainerEnv, ErrNoHost: the process could not be described;
//   - ctx.Err(): the deadline passed or ctx was cancelled;
//   - ErrUnreachable: the server could not be reached;
//   - ErrAccessDenied: the server refused the user or the insert;
//   - ErrNoTable: the table is missing; EnsureSchema creates it;
//   - ErrNoAutoIncrement: the table's ID column is not AUTO_INCREMENT.
func (d *Disposable) AssignWorkerID(ctx context.Context) (int64, error) {
	now := d.now()
	n, err := d.host.describe(now)
	if err != nil {
		return 0, fmt.Errorf("worker: describe this process: %w", err)
	}
	op := "insert row into " + d.table
	res, err := d.db.ExecContext(ctx,
		"INSERT INTO "+d.table+" (HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED) VALUES (?, ?, ?, ?, NOW(), NOW())",
		// LAUNCH_DATE goes as text so the driver's time zone (UTC unless
		// the DSN says loc=) can not move it to another day.
		n.host, n.port, int(n.typ), now.Format(time.DateOnly))
	if err != nil {
		return 0, fail(ctx, op, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fail(ctx, op, err)
	}
	if id <= 0 {
		return 0, fmt.Errorf("worker: %s: %w: the insert returned ID %d (want ID BIGINT NOT NULL AUTO_INCREMENT, as Schema has it)",
			op, ErrNoAutoIncrement, id)
	}
	if d.logger != nil {
		d.logger.InfoContext(ctx, "worker: assigned worker ID", "id", id, "table", d.table,
			"type", n.typ, "host", n.host, "port", n.port)
	}
	return id, nil
}

// fail wraps err, the driver's answer to op, with the sentinel that names its
// cause, prefixed for an exported function to return.
func fail(ctx context.Context, op string, err error) error {
	return fmt.Errorf("worker: %s: %w", op, cause(ctx, err))
}

// cause wraps err, the driver's answer to a statement sent under ctx, with
// the sentinel that names its cause, unprefixed. A done ctx comes first: a
// deadline met while dialling is also a network timeout, and it is the
// caller's deadline that the caller must see.
func cause(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		if !errors.Is(err, cerr) {
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		return err
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case errNoSuchTable:
			return fmt.Errorf("%w: %w (create the table with worker.EnsureSchema or the DDL that `uidgen schema` prints)",
				ErrNoTable, err)
		case errBadField:
			return fmt.Errorf("%w: %w (add them with worker.EnsureSchema or the ALTER TABLE statements that `uidgen schema` prints)",
				ErrNoLeaseColumns, err)
		case errAccessDenied, errDBAccessDenied, errTableAccessDenied, errAccessDeniedNoPasswd:
			return fmt.Errorf("%w: %w", ErrAccessDenied, err)
		}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	return err
}
