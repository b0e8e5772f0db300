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

// EnsureSchema creates the worker table in db unless it exists: by default
// DefaultTable (WithTable names another), with Baidu's DDL unchanged. The
// server's "table exists" answer counts as success, as CREATE TABLE IF NOT
// EXISTS would, but Baidu's text stays as it is, so many processes may call
// it at once. An existing table is left as it is, whatever its columns.
//
// It fails with an error wrapping ErrNilDB or ErrBadTable before sending
// anything, and otherwise as Disposable.AssignWorkerID does (ctx.Err(),
// ErrUnreachable, ErrAccessDenied), with the operation named "create table".
func EnsureSchema(ctx context.Context, db *sql.DB, opts ...Option) error {
	o := newOptions(opts)
	table, err := checkDB(db, o.table)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, schemaFor(table))
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == errTableExists {
		return nil
	}
	if err != nil {
		return fail(ctx, "create table "+table, err)
	}
	if o.logger != nil {
		o.logger.InfoContext(ctx, "worker: created table", "table", table)
	}
	return nil
}
