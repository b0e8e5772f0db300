package worker

import (
	"context"
	"database/sql"
	_ "embed" // the WORKER_NODE DDL ships inside the package
	"errors"
	"fmt"
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
	table, err := tableName(table)
	if err != nil {
		return "", err
	}
	return schemaFor(table), nil
}

// schemaFor returns the DDL for an already checked table name.
func schemaFor(table string) string {
	return strings.Replace(schemaSQL, DefaultTable, table, 1)
}

// tableName checks name and returns it, or DefaultTable for "".
func tableName(name string) (string, error) {
	if name == "" {
		return DefaultTable, nil
	}
	if len(name) > maxIdentifier {
		return "", fmt.Errorf("%w: %q is %d characters, MySQL allows %d", ErrBadTable, name, len(name), maxIdentifier)
	}
	for i, c := range name {
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return "", fmt.Errorf("%w: %q has %q at byte %d (want letters, digits and underscores, not starting with a digit)",
				ErrBadTable, name, c, i)
		}
	}
	return name, nil
}

// EnsureSchema creates the worker table unless it exists: by default
// DefaultTable, with Baidu's DDL unchanged. It is
// NewDisposable(db, opts...).EnsureSchema(ctx); see there.
func EnsureSchema(ctx context.Context, db *sql.DB, opts ...Option) error {
	return NewDisposable(db, opts...).EnsureSchema(ctx)
}

// EnsureSchema creates d's table with Schema's DDL unless it exists, with
// the semantics of CREATE TABLE IF NOT EXISTS but Baidu's text unchanged: the
// server's "table exists" answer counts as success, so many processes may
// call it at once. An existing table is left as it is, whatever its columns.
//
// It fails as AssignWorkerID does, wrapping ErrNilDB, ErrBadTable,
// ctx.Err(), ErrUnreachable or ErrAccessDenied where one is the cause, with
// the operation named "create table".
func (d *Disposable) EnsureSchema(ctx context.Context) error {
	if d.err != nil {
		return d.err
	}
	_, err := d.db.ExecContext(ctx, schemaFor(d.table))
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == errTableExists {
		return nil
	}
	if err != nil {
		return d.fail(ctx, "create table "+d.table, err)
	}
	d.logger.InfoContext(ctx, "worker: created table", "table", d.table)
	return nil
}
