package segment

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
)

// TestEnsureSchemaRefusesOtherShapes: a tag table, or a table of numbers
// given back, of the names EnsureSchema makes but of another shape is
// refused before any DDL with an error wrapping uidgen.ErrConfig that names
// the table, what differs and what to do in the dialect in use; each table
// is left as it was, its definition and its rows, and a missing one is not
// created.
func TestEnsureSchemaRefusesOtherShapes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		leaf := func(table string) string { tags, _ := schemaFor(s.Dialect(), table); return tags }
		const leafRow = " (biz_tag, max_id, step, description, update_time) VALUES ('order', 3001, 1000, 'Leaf''s', CURRENT_TIMESTAMP)"
		for _, tt := range []struct {
			name     string
			ddl      func(table string) []string
			refused  string // the table named
			says, is string // what differs, in any case, with | between parts; what the table is not
		}{
			{"another program's", func(table string) []string {
				return []string{"CREATE TABLE " + table + " (biz_tag VARCHAR(128) PRIMARY KEY, next_id BIGINT NOT NULL)",
					"INSERT INTO " + table + " VALUES ('order', 42)"}
			}, "", "no column max_id, step, description or update_time; its own column next_id", "Leaf's leaf_alloc"},
			{"Leaf's with a text step", func(table string) []string {
				return []string{strings.NewReplacer("step int(11)", "step VARCHAR(11)", "step INT", "step VARCHAR(11)").Replace(leaf(table)),
					"INSERT INTO " + table + leafRow}
			}, "", "column step is |(11), want an integer", "Leaf's leaf_alloc"}, // varchar, VARCHAR or character varying
			{"Leaf's and a column of its own", func(table string) []string {
				return []string{leaf(table), "ALTER TABLE " + table + " ADD COLUMN team VARCHAR(32)", "INSERT INTO " + table + leafRow}
			}, "", "its own column team", "Leaf's leaf_alloc"},
			{"another program's table of numbers given back", func(table string) []string {
				return []string{leaf(table), "INSERT INTO " + table + leafRow,
					"CREATE TABLE " + returnedTable(table) + " (biz_tag VARCHAR(128), start_id BIGINT, note VARCHAR(32))",
					"INSERT INTO " + returnedTable(table) + " VALUES ('order', 1, 'kept')"}
			}, "_returned", "no column end_id or returned_at; its own column note", "this package's table of numbers given back"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				table := dbtest.Table(t, db, "leaf_alloc_")
				for _, stmt := range tt.ddl(table) {
					s.Exec(t, db, stmt)
				}
				before := snapshots(t, s, db, table)
				err := EnsureSchema(testContext(t), Config{DB: db, Table: table})
				for _, text := range []string{
					"segment: invalid config: table " + table + tt.refused + " is not " + tt.is + ": ",
					"; it is left as it is (name another table: Config.Table, uidgen's -segment-table;" +
						" `uidgen schema -segment -dialect " + s.Kind + "` prints the ones it makes)",
				} {
					if !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), text) {
						t.Fatalf("EnsureSchema: %v, want an error wrapping %q with %q", err, uidgen.ErrConfig, text)
					}
				}
				for _, part := range strings.Split(tt.says, "|") {
					if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(part)) {
						t.Errorf("EnsureSchema: error %q does not say %q", err, part)
					}
				}
				if after := snapshots(t, s, db, table); after != before {
					t.Errorf("EnsureSchema changed the tables it refused: they were\n%s\nand are\n%s", before, after)
				}
			})
		}
	})
}

// snapshots returns the Snapshot of tag table table and of its table of
// numbers given back, "missing" for one that does not exist.
func snapshots(t *testing.T, s dbtest.Server, db *sql.DB, table string) string {
	t.Helper()
	var out []string
	for _, name := range []string{table, returnedTable(table)} {
		cols, err := s.Dialect().Columns(testContext(t), db, name)
		switch {
		case err != nil:
			t.Fatal(err)
		case len(cols) == 0:
			out = append(out, name+": missing")
		default:
			out = append(out, name+":\n"+s.Snapshot(t, db, name))
		}
	}
	return strings.Join(out, "\n")
}

// TestEnsureSchemaOnLeafsTable: a table Leaf's DDL made, with a tag Leaf
// claimed from, keeps its definition and rows, gets its table of numbers
// given back, and serves a generator above Leaf's numbers; a second call
// changes nothing.
func TestEnsureSchemaOnLeafsTable(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		table := dbtest.Table(t, db, "leaf_alloc_")
		tags, _ := schemaFor(s.Dialect(), table)
		s.Exec(t, db, tags)
		s.Exec(t, db, "INSERT INTO "+table+" (biz_tag, max_id, step, description) VALUES ('order', 3001, 1000, 'Leaf''s')")
		before := s.Snapshot(t, db, table)
		cfg := Config{DB: db, Table: table, Tag: "order"}
		if err := EnsureSchema(testContext(t), cfg); err != nil {
			t.Fatalf("EnsureSchema on Leaf's table: %v", err)
		}
		if after := s.Snapshot(t, db, table); after != before {
			t.Errorf("EnsureSchema changed Leaf's table: it was\n%s\nand is\n%s", before, after)
		}
		both := snapshots(t, s, db, table)
		if strings.Contains(both, "missing") {
			t.Fatalf("EnsureSchema made no table of numbers given back:\n%s", both)
		}
		if err := EnsureSchema(testContext(t), cfg); err != nil {
			t.Fatalf("EnsureSchema again: %v", err)
		}
		if again := snapshots(t, s, db, table); again != both {
			t.Errorf("EnsureSchema again changed the tables: they were\n%s\nand are\n%s", both, again)
		}
		if n, err := open(t, cfg).NextID(); err != nil || n < 3001 {
			t.Errorf("NextID on Leaf's tag = %d, %v; want one at or above Leaf's max_id 3001", n, err)
		}
	})
}

// TestOtherShapeNamed: New, Lookup and List on a tag table of another
// shape, another program's or Leaf's with a 32-bit max_id, fail as
// EnsureSchema does, before they write anything: with an error wrapping
// uidgen.ErrConfig that names the table, each column that differs and what
// to do in the dialect in use; the table is left as it was.
func TestOtherShapeNamed(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		for _, tt := range []struct {
			name, columns, row, says string
			narrow                   bool // a 32-bit column, which SQLite has none of
		}{
			{"another program's", "biz_tag VARCHAR(128) PRIMARY KEY, next_id BIGINT NOT NULL", "('order', 42)",
				"no column max_id, step, description or update_time; its own column next_id", false},
			{"Leaf's with a 32-bit max_id", "biz_tag VARCHAR(128) PRIMARY KEY, max_id INT NOT NULL, step INT NOT NULL," +
				" description VARCHAR(256), update_time TIMESTAMP", "('order', 42, 1000, 'x', CURRENT_TIMESTAMP)",
				"column max_id is int", true},
		} {
			t.Run(tt.name, func(t *testing.T) {
				if tt.narrow && s.Kind == "sqlite" {
					t.Skip("every SQLite integer is 64 bits")
				}
				table := dbtest.Table(t, db, "leaf_alloc_")
				s.Exec(t, db, "CREATE TABLE "+table+" ("+tt.columns+")")
				s.Exec(t, db, "INSERT INTO "+table+" VALUES "+tt.row)
				before := snapshots(t, s, db, table)
				cfg := Config{DB: db, Table: table, Tag: "order"}
				_, err := New(testContext(t), cfg)
				_, kerr := Lookup(testContext(t), cfg)
				_, lerr := List(testContext(t), cfg)
				says := "segment: invalid config: table " + table + " is not Leaf's leaf_alloc: " + tt.says
				fix := "; it is left as it is (name another table: Config.Table, uidgen's -segment-table;" +
					" `uidgen schema -segment -dialect " + s.Kind + "` prints the ones it makes)"
				for _, err := range []error{err, kerr, lerr} {
					if !errors.Is(err, uidgen.ErrConfig) || !strings.HasPrefix(err.Error(), says) || !strings.HasSuffix(err.Error(), fix) {
						t.Errorf("%v, want an error wrapping %q starting %q and ending %q", err, uidgen.ErrConfig, says, fix)
					}
				}
				if after := snapshots(t, s, db, table); after != before {
					t.Errorf("New, Lookup and List changed the table: it was\n%s\nand is\n%s", before, after)
				}
			})
		}
	})
}
