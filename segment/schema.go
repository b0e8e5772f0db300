package segment

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen/internal/dialect"
)

// DefaultTable is Leaf's table of tags.
const DefaultTable = "leaf_alloc"

// mysqlSQL is Leaf's DDL for leaf_alloc, so that a table a Java Leaf
// server uses serves this package and the other way round.
const mysqlSQL = "CREATE TABLE leaf_alloc (\n" +
	"  biz_tag varchar(128) NOT NULL DEFAULT '',\n" +
	"  max_id bigint(20) NOT NULL DEFAULT '1',\n" +
	"  step int(11) NOT NULL,\n" +
	"  description varchar(256) DEFAULT NULL,\n" +
	"  update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,\n" +
	"  PRIMARY KEY (biz_tag)\n" +
	") ENGINE=InnoDB;\n"

// postgresSQL is the same table for PostgreSQL. update_time has a time
// zone, as MySQL's TIMESTAMP has in effect: it is stored as an instant.
const postgresSQL = "CREATE TABLE leaf_alloc (\n" +
	"  biz_tag VARCHAR(128) NOT NULL DEFAULT '',\n" +
	"  max_id BIGINT NOT NULL DEFAULT 1,\n" +
	"  step INT NOT NULL,\n" +
	"  description VARCHAR(256) DEFAULT NULL,\n" +
	"  update_time TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,\n" +
	"  PRIMARY KEY (biz_tag)\n" +
	");\n"

// Schema returns the DDL of the tag table for dialect, "mysql" or
// "postgres" (ErrDialect for another): for MySQL and DefaultTable (or ""),
// Leaf's leaf_alloc exactly; for another table name, the same text with
// that name. The name must be a plain identifier (ErrBadTable), as for
// worker.Schema.
func Schema(dialectName, table string) (string, error) {
	if table == "" {
		table = DefaultTable
	}
	d, err := dialect.Named(dialectName)
	if err == nil {
		err = d.CheckTable(table)
	}
	if err != nil {
		return "", fmt.Errorf("segment: %w", err)
	}
	return schemaFor(d, table), nil
}

func schemaFor(d *dialect.Dialect, table string) string {
	ddl := mysqlSQL
	if d == dialect.Postgres {
		ddl = postgresSQL
	}
	return strings.Replace(ddl, DefaultTable, table, 1)
}

// EnsureSchema creates cfg.Table in cfg.DB unless it exists; it reads only
// DB, Dialect and Table. The server's "table exists" answer counts as
// success, so many processes may call it at once. It fails as New does
// before sending anything (ErrNilDB, ErrDialect, ErrBadTable), and
// otherwise with the server's error, wrapping ErrUnreachable or
// ErrAccessDenied where it says so.
func EnsureSchema(ctx context.Context, cfg Config) error {
	t, err := cfg.checkTable()
	if err != nil {
		return fmt.Errorf("segment: %w", err)
	}
	if _, err := t.d.CreateTable(ctx, t.DB, schemaFor(t.d, t.Table)); err != nil {
		return fmt.Errorf("segment: create table %s: %w", t.Table, cause(ctx, t.d, err))
	}
	return nil
}

// cause wraps err, the driver's answer to a statement sent under ctx, with
// the sentinel that names its cause.
func cause(ctx context.Context, d *dialect.Dialect, err error) error {
	return d.Explain(ctx, err, hints)
}

// hints are the failures of the tag table that this package names.
var hints = map[dialect.Kind]dialect.Hint{
	dialect.NoTable: {Err: ErrNoTable, Fix: "create it with segment.EnsureSchema or the DDL that `uidgen schema -segment [-dialect postgres]` prints"},
}

// maxTag is the width of biz_tag.
const maxTag = 128

// checkTag returns an error wrapping ErrBadTag unless tag is 1 to 128
// letters, digits and the punctuation . _ - : that tags are written with.
func checkTag(tag string) error {
	if tag == "" || len(tag) > maxTag {
		return fmt.Errorf("%w: %q is %d bytes, want 1 to %d", ErrBadTag, tag, len(tag), maxTag)
	}
	for i, c := range tag {
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("._-:", c)
		if !ok {
			return fmt.Errorf("%w: %q has %q at byte %d (want letters, digits and . _ - :)", ErrBadTag, tag, c, i)
		}
	}
	return nil
}

// Row is one tag of the table, as a person wants to see it.
type Row struct {
	Tag         string
	Next        int64 // max_id: the first number of the next range claimed
	Step        int64 // the tag's smallest range
	Description string
	LastClaim   time.Time // update_time: the last claim or return, in UTC
}

// List returns the tags of cfg.Table in cfg.DB, by tag; it reads only DB,
// Dialect and Table. It fails as EnsureSchema does, and with ErrNoTable
// when the table is missing.
func List(ctx context.Context, cfg Config) ([]Row, error) {
	t, err := cfg.checkTable()
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	db, d, table := t.DB, t.d, t.Table
	rows, err := db.QueryContext(ctx, "SELECT biz_tag, max_id, step, COALESCE(description, ''), "+
		d.UnixSeconds("update_time")+" FROM "+table+" ORDER BY biz_tag")
	if err != nil {
		return nil, fmt.Errorf("segment: list the tags of %s: %w", table, cause(ctx, d, err))
	}
	defer rows.Close()
	var list []Row
	for rows.Next() {
		var r Row
		var last int64
		if err := rows.Scan(&r.Tag, &r.Next, &r.Step, &r.Description, &last); err != nil {
			return nil, fmt.Errorf("segment: list the tags of %s: %w", table, err)
		}
		r.LastClaim = time.Unix(last, 0).UTC()
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("segment: list the tags of %s: %w", table, cause(ctx, d, err))
	}
	return list, nil
}
