package dbtest

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// Snapshot returns table's definition, as the server gives it, and its
// rows: a test compares one taken before a call with one taken after, to
// show that the call left the table as it was. The definition is SQLite's
// CREATE statements of the table and its indexes, MySQL's SHOW CREATE
// TABLE (with its AUTO_INCREMENT counter), or PostgreSQL's columns (type,
// length, nullability, default, identity), constraints and indexes.
func (s Server) Snapshot(t testing.TB, db *sql.DB, table string) string {
	t.Helper()
	var def []string
	switch s.Kind {
	case "sqlite":
		def = lines(t, db, "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = ? ORDER BY name", table)
	case "mysql":
		def = lines(t, db, "SHOW CREATE TABLE "+table)
	default:
		def = lines(t, db, `SELECT column_name, data_type, character_maximum_length, is_nullable, column_default, is_identity,
				identity_generation FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = LOWER($1) ORDER BY ordinal_position`, table)
		def = append(def, lines(t, db, `SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
			WHERE conrelid = to_regclass(LOWER($1)) ORDER BY conname`, table)...)
		def = append(def, lines(t, db, `SELECT indexdef FROM pg_indexes
			WHERE schemaname = current_schema() AND tablename = LOWER($1) ORDER BY indexname`, table)...)
	}
	rows := lines(t, db, "SELECT * FROM "+table+" ORDER BY 1")
	return strings.Join(def, "\n") + "\nrows:\n" + strings.Join(rows, "\n")
}

// lines returns the rows query returns, a line each, its values
// separated by " | ".
func lines(t testing.TB, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			cells[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(cells, " | "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
