package worker

import (
	"context"
	"database/sql"
	_ "embed" // the WORKER_NODE DDL ships inside the package
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// DefaultTable is the table Baidu's DDL creates and its assigner inserts into.
const DefaultTable = "WORKER_NODE"

// maxIdentifier is MySQL's longest table name, in characters.
const maxIdentifier = 64

// errTableExists is MySQL's ER_TABLE_EXISTS_ERROR.
const errTableExists = 1050

// schemaSQL is Baidu's WORKER_NODE.sql, byte for byte, so that a table made
// by either project serves both.
//
//go:embed WORKER_NODE.sql
var schemaSQL string

// Schema returns the DDL of the worker table: for DefaultTable or "",
// Baidu's WORKER_NODE.sql exactly; for another name, the same text with that
// name in place of WORKER_NODE.
//
// table must be a plain identifier (letters, digits and underscores, not
// starting with a digit, at most 64 characters), since it is written into
// SQL unquoted as Baidu writes WORKER_NODE; anything else is an error
// wrapping ErrBadTable. A reserved word passes this check and fails on the
// server as a syntax error.
func Schema(table string) (string, error) {
	if table == "" {
		table = DefaultTable
	}
	if err := checkTable(table); err != nil {
		return "", fmt.Errorf("worker: %w", err)
	}
	return schemaFor(table), nil
}

// schemaFor returns the DDL for an already checked table name.
func schemaFor(table string) string {
	return strings.Replace(schemaSQL, DefaultTable, table, 1)
}

// leaseColumns are the columns that leases add to Baidu's table, in order.
// Each is nullable or has a default, so Baidu's INSERT, which names none of
// them, still works, and makes a row with LEASED 0: a disposable row, which
// no lease ever takes.
var leaseColumns = []struct{ name, def string }{
	{"LEASED", "TINYINT NOT NULL DEFAULT 0 COMMENT '1: leased, the ID comes back; 0: disposable, used once'"},
	{"OWNER", "CHAR(32) NULL COMMENT 'random token of the lease holder; NULL once released'"},
	{"LEASE_UNTIL", "BIGINT NULL COMMENT 'Unix ms, by the database clock, when the lease expires'"},
	{"RESERVED_UNTIL", "BIGINT NULL COMMENT 'last Unix second reserved for holders of this ID'"},
}

// LeaseSchema returns the statements that add the lease columns NewLeased
// needs to the worker table that Schema creates, one ALTER TABLE a column.
// EnsureSchema runs those the table lacks. Baidu's Java assigner ignores the
// columns, and its rows count as disposable. table is checked as Schema
// checks it.
func LeaseSchema(table string) (string, error) {
	if table == "" {
		table = DefaultTable
	}
	if err := checkTable(table); err != nil {
		return "", fmt.Errorf("worker: %w", err)
	}
	var b strings.Builder
	for _, c := range leaseColumns {
		b.WriteString(addColumn(table, c.name, c.def) + ";\n")
	}
	return b.String(), nil
}

// addColumn returns the ALTER TABLE statement that adds one column.
func addColumn(table, name, def string) string {
	return "ALTER TABLE " + table + " ADD COLUMN " + name + " " + def
}

// checkTable returns an error wrapping ErrBadTable unless name is a plain
// identifier.
func checkTable(name string) error {
	if name == "" || len(name) > maxIdentifier {
		return fmt.Errorf("%w: %q is %d characters, want 1 to %d", ErrBadTable, name, len(name), maxIdentifier)
	}
	for i, c := range name {
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return fmt.Errorf("%w: %q has %q at byte %d (want letters, digits and underscores, not starting with a digit)",
				ErrBadTable, name, c, i)
		}
	}
	return nil
}

// EnsureSchema creates the worker table in db unless it exists, and adds
// the lease columns it lacks (LeaseSchema): by default DefaultTable
// (WithTable names another). The table is created with Baidu's DDL
// unchanged, and the columns are added one ALTER TABLE each, so a table that
// Baidu's Java project made is brought up to date in place and its rows stay
// as they are. The server's "table exists" and "duplicate column" answers
// count as success, so many processes may call it at once, and calling it
// again changes nothing.
//
// It fails with an error wrapping ErrNilDB or ErrBadTable before sending
// anything, and otherwise as Disposable.AssignWorkerID does (ctx.Err(),
// ErrUnreachable, ErrAccessDenied), naming the operation: "create table",
// "read the columns of" or "add column".
func EnsureSchema(ctx context.Context, db *sql.DB, opts ...Option) error {
	o := newOptions(opts)
	table, err := checkDB(db, o.table)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, schemaFor(table))
	var me *mysql.MySQLError
	switch {
	case errors.As(err, &me) && me.Number == errTableExists:
	case err != nil:
		return fail(ctx, "create table "+table, err)
	case o.logger != nil:
		o.logger.InfoContext(ctx, "worker: created table", "table", table)
	}
	return addLeaseColumns(ctx, db, table, o.logger)
}

// addLeaseColumns adds the lease columns that table lacks. Another process
// may add one between the look and the ALTER; its "duplicate column" answer
// means the column is there, as wanted.
func addLeaseColumns(ctx context.Context, db *sql.DB, table string, logger *slog.Logger) error {
	have, err := columns(ctx, db, table)
	if err != nil {
		return fail(ctx, "read the columns of "+table, err)
	}
	for _, c := range leaseColumns {
		if have[c.name] {
			continue
		}
		_, err := db.ExecContext(ctx, addColumn(table, c.name, c.def))
		var me *mysql.MySQLError
		switch {
		case errors.As(err, &me) && me.Number == errDupFieldName:
		case err != nil:
			return fail(ctx, "add column "+c.name+" to "+table, err)
		case logger != nil:
			logger.InfoContext(ctx, "worker: added column", "table", table, "column", c.name)
		}
	}
	return nil
}

// columns returns the names, in upper case, of the columns of table in db's
// current database.
func columns(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx,
		"SELECT UPPER(COLUMN_NAME) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := make(map[string]bool)
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		have[name] = true
	}
	return have, rows.Err()
}
