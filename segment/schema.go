package segment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen"
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

// sqliteSQL is the same table for SQLite, whose CURRENT_TIMESTAMP is UTC.
const sqliteSQL = "CREATE TABLE leaf_alloc (\n" +
	"  biz_tag VARCHAR(128) NOT NULL DEFAULT '',\n" +
	"  max_id BIGINT NOT NULL DEFAULT 1,\n" +
	"  step INT NOT NULL,\n" +
	"  description VARCHAR(256) DEFAULT NULL,\n" +
	"  update_time TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,\n" +
	"  PRIMARY KEY (biz_tag)\n" +
	");\n"

// returnedSQL is the table of numbers given back, for every dialect: the
// runs [start_id, end_id) of a tag that a generator took, did not hand out,
// and could not give back by moving max_id, because another process had
// claimed since. A later claim of the tag takes a run whole, lowest first,
// by deleting its row. Leaf's servers never read it; its numbers are below
// max_id, where no claim of theirs goes.
const returnedSQL = "CREATE TABLE leaf_alloc_returned (\n" +
	"  biz_tag VARCHAR(128) NOT NULL,\n" +
	"  start_id BIGINT NOT NULL,\n" +
	"  end_id BIGINT NOT NULL,\n" +
	"  returned_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,\n" +
	"  PRIMARY KEY (biz_tag, start_id)\n" +
	");\n"

// returnedTable names the table of numbers given back of the tag table
// table.
func returnedTable(table string) string { return table + "_returned" }

// Schema returns the DDL of the tag table for dialect, "mysql", "postgres"
// or "sqlite" (uidgen.ErrConfig for another), then that of its table of
// numbers given back, table_returned: for MySQL and DefaultTable (or ""), Leaf's
// leaf_alloc exactly, then leaf_alloc_returned; for another table name,
// the same text with that name. The name must be a plain identifier
// (uidgen.ErrConfig), as for worker.Schema, and so must table_returned.
func Schema(dialectName, table string) (string, error) {
	if table == "" {
		table = DefaultTable
	}
	d, err := dialect.Named(dialectName)
	if err == nil {
		err = d.CheckTable(returnedTable(table))
	}
	if err != nil {
		return "", fmt.Errorf("segment: %w", err)
	}
	tags, returned := schemaFor(d, table)
	return tags + "\n" + returned, nil
}

// schemaFor returns the DDL of the tag table and of its table of numbers
// given back.
func schemaFor(d *dialect.Dialect, table string) (tags, returned string) {
	ddl := mysqlSQL
	switch d {
	case dialect.Postgres:
		ddl = postgresSQL
	case dialect.SQLite:
		ddl = sqliteSQL
	}
	return strings.Replace(ddl, DefaultTable, table, 1), strings.Replace(returnedSQL, DefaultTable, table, 1)
}

// shape is a table this package knows: what it is, and its columns as
// the package's statements read and write them.
type shape struct {
	is   string
	want []dialect.Want
}

// tagShape is Leaf's leaf_alloc: a tag table of these columns, each of its
// class, is one EnsureSchema knows. max_id is 64 bits, as Leaf's DDL makes
// it (bigint(20)): a narrower one takes claims until the numbers pass 2^31,
// then fails them all.
var tagShape = shape{is: "Leaf's leaf_alloc", want: []dialect.Want{
	{Name: "biz_tag", Class: dialect.Text, Length: maxTag},
	{Name: "max_id", Class: dialect.Int64},
	{Name: "step", Class: dialect.Int},
	{Name: "description", Class: dialect.Text},
	{Name: "update_time", Class: dialect.Time},
}}

// returnedShape is the table of numbers given back.
var returnedShape = shape{is: "this package's table of numbers given back", want: []dialect.Want{
	{Name: "biz_tag", Class: dialect.Text, Length: maxTag},
	{Name: "start_id", Class: dialect.Int64},
	{Name: "end_id", Class: dialect.Int64},
	{Name: "returned_at", Class: dialect.Time},
}}

// check reads the columns of table in t's database and reports it missing,
// or fails, wrapping uidgen.ErrConfig, naming the table and each column
// that differs, where it is not of shape s.
func (s shape) check(ctx context.Context, t config, table string) (missing bool, err error) {
	have, err := t.d.Columns(ctx, t.DB, table)
	if err != nil {
		return false, fmt.Errorf("read the columns of %s: %w", table, cause(ctx, t.d, err))
	}
	if len(have) == 0 {
		return true, nil
	}
	if _, err := t.d.Compare(have, s.want); err != nil {
		return false, fmt.Errorf("%w: table %s is not %s: %w; it is left as it is (%s)",
			uidgen.ErrConfig, table, s.is, err, otherShape(t.d))
	}
	return false, nil
}

// EnsureSchema creates cfg.Table in cfg.DB, and its table of numbers given
// back (see Schema), unless they exist; it reads only DB, Dialect and
// Table. A table Leaf's server made gets the second table and keeps
// serving Leaf. The server's "table exists" answer counts as success, so
// many processes may call it at once.
//
// It creates a table only beside tables of the shapes it knows: a tag table
// of Leaf's leaf_alloc (biz_tag, max_id, step, description, update_time,
// and no other column, each of its kind: characters enough for a tag, a
// 64-bit max_id, an integer step, a time), and a table of numbers given
// back of its own. Either may be another program's table of the same name:
// any other shape is refused, after reading the columns and before any
// DDL, with an error wrapping uidgen.ErrConfig that names the table, each
// column missing, of another type or of its own, and what to do; the
// tables are left as they are. Tables that both exist get no statement
// but the look.
//
// It fails as New does before sending anything (uidgen.ErrConfig), and
// otherwise with the server's error, wrapping uidgen.ErrUnreachable or
// uidgen.ErrAccessDenied where it says so, naming the operation: "read the
// columns of" or "create table".
func EnsureSchema(ctx context.Context, cfg Config) error {
	t, err := cfg.checkTable()
	if err != nil {
		return fmt.Errorf("segment: %w", err)
	}
	tags, returned := schemaFor(t.d, t.Table)
	tables := []struct {
		name, ddl string
		shape     shape
		missing   bool
	}{
		{name: t.Table, ddl: tags, shape: tagShape},
		{name: returnedTable(t.Table), ddl: returned, shape: returnedShape},
	}
	for i, c := range tables {
		missing, err := c.shape.check(ctx, t, c.name)
		if err != nil {
			return fmt.Errorf("segment: %w", err)
		}
		tables[i].missing = missing
	}
	for _, c := range tables {
		if !c.missing {
			continue
		}
		if _, err := t.d.CreateTable(ctx, t.DB, c.ddl); err != nil {
			return fmt.Errorf("segment: create table %s: %w", c.name, cause(ctx, t.d, err))
		}
	}
	return nil
}

// cause wraps err, the driver's answer to a statement sent under ctx, with
// the sentinel that names its cause.
func cause(ctx context.Context, d *dialect.Dialect, err error) error {
	return d.Explain(ctx, err, hints(d))
}

// hints returns the failures of the tag table that this package names,
// with fixes in d's dialect. Its statements name only the columns of its
// two tables, so a column missing is a table of another shape.
func hints(d *dialect.Dialect) map[dialect.Kind]dialect.Hint {
	return map[dialect.Kind]dialect.Hint{
		dialect.NoTable:  {Err: uidgen.ErrNoTable, Fix: "create it with segment.EnsureSchema or the DDL that `" + d.SchemaCommand("-segment") + "` prints"},
		dialect.NoColumn: {Err: uidgen.ErrConfig, Fix: "the table is not of Leaf's shape: " + otherShape(d)},
	}
}

// otherShape says what to do about a table of another shape than this
// package's, in d's dialect.
func otherShape(d *dialect.Dialect) string {
	return "name another table: Config.Table, uidgen's -segment-table; `" + d.SchemaCommand("-segment") + "` prints the ones it makes"
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
	// Returned counts the tag's numbers given back below Next, waiting
	// for a later claim to hand them out, in ReturnedRuns runs.
	Returned, ReturnedRuns int64
}

// List returns the tags of cfg.Table in cfg.DB, by tag; it reads only DB,
// Dialect and Table. It fails as EnsureSchema does, and with uidgen.ErrNoTable
// when the table is missing.
func List(ctx context.Context, cfg Config) ([]Row, error) {
	t, err := cfg.checkTable()
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	db, d, table := t.DB, t.d, t.Table
	if _, err := tagShape.check(ctx, t, table); err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
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
	if err := countReturned(ctx, t, list); err != nil {
		return nil, fmt.Errorf("segment: list the tags of %s: %w", table, err)
	}
	return list, nil
}

// countReturned fills in the Returned and ReturnedRuns of list, by tag,
// from t's table of numbers given back; a missing one has none.
func countReturned(ctx context.Context, t config, list []Row) error {
	returned := returnedTable(t.Table)
	rows, err := t.DB.QueryContext(ctx, "SELECT biz_tag, SUM(end_id - start_id), COUNT(*) FROM "+returned+" GROUP BY biz_tag")
	if err != nil {
		err = cause(ctx, t.d, err)
		if errors.Is(err, uidgen.ErrNoTable) {
			return nil
		}
		return err
	}
	defer rows.Close()
	byTag := make(map[string]*Row, len(list))
	for i := range list {
		byTag[list[i].Tag] = &list[i]
	}
	for rows.Next() {
		var tag string
		var n, runs int64
		if err := rows.Scan(&tag, &n, &runs); err != nil {
			return err
		}
		if r := byTag[tag]; r != nil {
			r.Returned, r.ReturnedRuns = n, runs
		}
	}
	return rows.Err()
}
