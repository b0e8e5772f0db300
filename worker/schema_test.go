package worker

import (
	"cmp"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/dialect"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
)

func TestSchema(t *testing.T) {
	file, err := os.ReadFile("WORKER_NODE.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, ddl := range []string{string(file), postgresSQL} {
		if n := strings.Count(ddl, DefaultTable); n != 1 {
			t.Fatalf("the DDL names %s %d times, want once: Schema replaces one\n%s", DefaultTable, n, ddl)
		}
	}
	named := func(ddl, table string) string { return strings.Replace(ddl, "WORKER_NODE", table, 1) }
	tests := []struct {
		dialect, table string
		want           string
	}{
		{"mysql", "", string(file)},
		{"MySQL", DefaultTable, string(file)},
		{"mysql", "uid_worker_2", strings.Replace(string(file), "CREATE TABLE WORKER_NODE\n", "CREATE TABLE uid_worker_2\n", 1)},
		{"mysql", "_x", named(string(file), "_x")},
		{"mysql", strings.Repeat("w", 64), named(string(file), strings.Repeat("w", 64))},
		{"postgres", "", postgresSQL},
		{"postgresql", "uid_worker_2", named(postgresSQL, "uid_worker_2")},
		{"pgx", strings.Repeat("w", 63), named(postgresSQL, strings.Repeat("w", 63))},
	}
	for _, tt := range tests {
		t.Run(tt.dialect+"/"+tt.table, func(t *testing.T) {
			got, err := Schema(tt.dialect, tt.table)
			create, lease, found := strings.Cut(got, "\n\n"+leaseHeader)
			if err != nil || !found || create != strings.TrimSuffix(tt.want, "\n") {
				t.Fatalf("Schema(%q, %q) = %q, %v; want %q, then the lease columns", tt.dialect, tt.table, got, err, tt.want)
			}
			table := cmp.Or(tt.table, DefaultTable)
			if n := strings.Count(lease, "ALTER TABLE "+table+" ADD COLUMN "); n != len(leaseColumns) || !strings.HasSuffix(lease, ";\n") {
				t.Errorf("Schema(%q, %q) has %d ALTER TABLE statements on %s, want %d:\n%s", tt.dialect, tt.table, n, table, len(leaseColumns), lease)
			}
		})
	}
}

func TestSchemaBadInput(t *testing.T) {
	for _, tt := range []struct {
		dialect, table string
		want           error
		text           string
	}{
		{"mysql", "1WORKER", uidgen.ErrConfig, `Table "1WORKER"`},
		{"mysql", "WORKER NODE", uidgen.ErrConfig, `Table "WORKER NODE"`},
		{"mysql", "WORKER-NODE", uidgen.ErrConfig, `Table "WORKER-NODE"`},
		{"mysql", "test.WORKER_NODE", uidgen.ErrConfig, `Table "test.WORKER_NODE"`},
		{"mysql", "W`N", uidgen.ErrConfig, "Table \"W`N\""},
		{"mysql", "W;DROP TABLE x", uidgen.ErrConfig, `Table "W;DROP TABLE x"`},
		{"mysql", "WÖRKER", uidgen.ErrConfig, `Table "WÖRKER"`},
		{"mysql", strings.Repeat("w", 65), uidgen.ErrConfig, "65 bytes: want 1 to 64"},
		{"postgres", strings.Repeat("w", 64), uidgen.ErrConfig, "64 bytes: want 1 to 63"},
		{"oracle", "", uidgen.ErrConfig, `Dialect "oracle": want mysql, postgres or sqlite`},
		{"", "", uidgen.ErrConfig, `Dialect "": want mysql, postgres or sqlite`},
	} {
		t.Run(tt.dialect+"/"+tt.table, func(t *testing.T) {
			got, err := Schema(tt.dialect, tt.table)
			checkErr(t, "Schema", err, tt.want, []string{"worker: ", tt.text})
			if got != "" {
				t.Errorf("Schema = %q with an error", got)
			}
		})
	}
}

// TestEnsureSchema creates the table once from many goroutines, again, and
// checks the server made Baidu's columns and the lease columns of it.
func TestEnsureSchema(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		ensureConcurrently(t, db, table)
		checkColumns(t, db, table)
	})
}

// ensureConcurrently runs EnsureSchema on table from many goroutines at
// once, then once more.
func ensureConcurrently(t *testing.T, db *sql.DB, table string) {
	t.Helper()
	ctx := testContext(t)
	err := leasetest.AtOnce(8, func(int) error { return EnsureSchema(ctx, Config{DB: db, Table: table}) })
	if err == nil {
		err = EnsureSchema(ctx, Config{DB: db, Table: table})
	}
	if err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}
}

// TestEnsureSchemaDefault runs the package's EnsureSchema, Baidu's DDL
// unchanged, in a database of its own.
func TestEnsureSchemaDefault(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		db = testDatabase(t, s)
		for range 2 {
			if err := EnsureSchema(testContext(t), Config{DB: db}); err != nil {
				t.Fatalf("EnsureSchema: %v", err)
			}
		}
		checkColumns(t, db, DefaultTable)
	})
}

// checkColumns fails the test unless table, in db's current database, has
// the columns of Schema's DDL, and the lease columns after them: on MySQL
// with the comment and engine of WORKER_NODE.sql.
func checkColumns(t *testing.T, db *sql.DB, table string) {
	t.Helper()
	switch dialectOf(t, db) {
	case dialect.Postgres:
		checkPostgresColumns(t, db, table)
		return
	case dialect.SQLite:
		checkSQLiteColumns(t, db, table)
		return
	}
	var comment, engine string
	err := db.QueryRow("SELECT TABLE_COMMENT, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?", table).
		Scan(&comment, &engine)
	if err != nil {
		t.Fatalf("table %s: %v", table, err)
	}
	if comment != "DB WorkerID Assigner for UID Generator" || !strings.EqualFold(engine, "InnoDB") {
		t.Errorf("table %s: comment %q, engine %s", table, comment, engine)
	}
	compareColumns(t, db, table, `SELECT COLUMN_NAME, DATA_TYPE, COALESCE(CHARACTER_MAXIMUM_LENGTH, 0), IS_NULLABLE, EXTRA, COLUMN_KEY, COLUMN_COMMENT
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, []string{
		`ID bigint(0) null=NO auto_increment key=PRI "auto increment id"`,
		`HOST_NAME varchar(64) null=NO  key= "host name"`,
		`PORT varchar(64) null=NO  key= "port"`,
		`TYPE int(0) null=NO  key= "node type: ACTUAL or CONTAINER"`,
		`LAUNCH_DATE date(0) null=NO  key= "launch date"`,
		`MODIFIED timestamp(0) null=NO  key= "modified time"`,
		`CREATED timestamp(0) null=NO  key= "created time"`,
		`LEASED tinyint(0) null=NO  key= "1: leased, the ID comes back; 0: disposable, used once"`,
		`OWNER char(32) null=YES  key= "random token of the lease holder; NULL once released"`,
		`LEASE_UNTIL bigint(0) null=YES  key= "Unix ms, by the database clock, when the lease expires"`,
		`RESERVED_UNTIL bigint(0) null=YES  key= "last Unix second reserved for holders of this ID"`,
	})
}

// checkPostgresColumns is checkColumns on PostgreSQL, which keeps no
// comments in the DDL and names the columns in lower case.
func checkPostgresColumns(t *testing.T, db *sql.DB, table string) {
	t.Helper()
	compareColumns(t, db, table, `SELECT c.column_name, c.data_type, COALESCE(c.character_maximum_length, 0), c.is_nullable,
			CASE WHEN c.is_identity = 'YES' THEN 'identity ' || c.identity_generation ELSE COALESCE(c.column_default, '') END,
			CASE WHEN EXISTS (SELECT 1 FROM information_schema.key_column_usage k WHERE k.table_schema = c.table_schema
				AND k.table_name = c.table_name AND k.column_name = c.column_name) THEN 'PRI' ELSE '' END, ''
		FROM information_schema.columns c WHERE c.table_schema = current_schema() AND c.table_name = LOWER($1) ORDER BY c.ordinal_position`, []string{
		`id bigint(0) null=NO identity BY DEFAULT key=PRI ""`,
		`host_name character varying(64) null=NO  key= ""`,
		`port character varying(64) null=NO  key= ""`,
		`type integer(0) null=NO  key= ""`,
		`launch_date date(0) null=NO  key= ""`,
		`modified timestamp without time zone(0) null=NO  key= ""`,
		`created timestamp without time zone(0) null=NO  key= ""`,
		`leased smallint(0) null=NO 0 key= ""`,
		`owner character varying(32) null=YES  key= ""`,
		`lease_until bigint(0) null=YES  key= ""`,
		`reserved_until bigint(0) null=YES  key= ""`,
	})
}

// checkSQLiteColumns is checkColumns on SQLite, which keeps the types as
// the DDL writes them and has an AUTOINCREMENT ID.
func checkSQLiteColumns(t *testing.T, db *sql.DB, table string) {
	t.Helper()
	compareColumns(t, db, table, `SELECT name, type, 0, CASE WHEN "notnull" = 1 OR pk = 1 THEN 'NO' ELSE 'YES' END,
			COALESCE(dflt_value, ''), CASE WHEN pk = 1 THEN 'PRI' ELSE '' END, '' FROM pragma_table_info(?) ORDER BY cid`, []string{
		`ID INTEGER(0) null=NO  key=PRI ""`,
		`HOST_NAME VARCHAR(64)(0) null=NO  key= ""`,
		`PORT VARCHAR(64)(0) null=NO  key= ""`,
		`TYPE INT(0) null=NO  key= ""`,
		`LAUNCH_DATE DATE(0) null=NO  key= ""`,
		`MODIFIED TIMESTAMP(0) null=NO  key= ""`,
		`CREATED TIMESTAMP(0) null=NO  key= ""`,
		`LEASED SMALLINT(0) null=NO 0 key= ""`,
		`OWNER VARCHAR(32)(0) null=YES  key= ""`,
		`LEASE_UNTIL BIGINT(0) null=YES  key= ""`,
		`RESERVED_UNTIL BIGINT(0) null=YES  key= ""`,
	})
	var autoincrement bool
	if err := db.QueryRow("SELECT COUNT(*) FROM sqlite_master WHERE name = ? AND sql LIKE '%AUTOINCREMENT%'", table).Scan(&autoincrement); err != nil || !autoincrement {
		t.Errorf("table %s: AUTOINCREMENT %v (%v), want true: a disposable ID must never come back", table, autoincrement, err)
	}
}

// compareColumns fails the test unless query, given table, returns want: a
// row a column, of its name, type, length, nullability, extra, key and
// comment.
func compareColumns(t *testing.T, db *sql.DB, table, query string, want []string) {
	t.Helper()
	rows, err := db.Query(query, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var name, typ, nullable, extra, key, comment string
		var length int
		if err := rows.Scan(&name, &typ, &length, &nullable, &extra, &key, &comment); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s(%d) null=%s %s key=%s %q", name, typ, length, nullable, extra, key, comment))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("columns of %s:\n%s\nwant:\n%s", table, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEnsureSchemaUpgrades brings a table made by Baidu's DDL, with a row
// Baidu's Java assigner inserted, up to date from many goroutines at once,
// then again: the lease columns are added once, and the old row is a
// disposable one.
func TestEnsureSchemaUpgrades(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		ctx := testContext(t)
		if _, err := db.ExecContext(ctx, schemaFor(s.Dialect(), table)); err != nil {
			t.Fatal(err)
		}
		javaID := javaInsert(t, db, table)
		ensureConcurrently(t, db, table)
		checkColumns(t, db, table)

		var leased int
		var owner, leaseUntil, reservedUntil sql.NullInt64
		err := db.QueryRowContext(ctx, q(t, db, "SELECT LEASED, OWNER, LEASE_UNTIL, RESERVED_UNTIL FROM "+table+" WHERE ID = ?"), javaID).
			Scan(&leased, &owner, &leaseUntil, &reservedUntil)
		if err != nil {
			t.Fatal(err)
		}
		if leased != 0 || owner.Valid || leaseUntil.Valid || reservedUntil.Valid {
			t.Errorf("Java's row after the upgrade: LEASED %d, OWNER %v, LEASE_UNTIL %v, RESERVED_UNTIL %v; want 0 and NULLs",
				leased, owner, leaseUntil, reservedUntil)
		}
		javaInsert(t, db, table) // Baidu's INSERT still works on the new columns
		if got := mustLease(t, newTestLeased(t, db, table, Config{}), 1023); got.WorkerID() == javaID {
			t.Errorf("leased worker ID %d, the ID of Java's disposable row", got.WorkerID())
		}
	})
}

// TestEnsureSchemaRefusesOtherShapes: a table of the worker table's name
// but of another shape, another program's or Baidu's changed, is refused
// by EnsureSchema before any DDL, and by List, with an error wrapping uidgen.ErrConfig that names the
// table, what differs and what to do in the dialect in use; the table is
// left as it was, its definition and its rows.
func TestEnsureSchemaRefusesOtherShapes(t *testing.T) {
	const baiduRow = " (HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED) VALUES (%s, '4242', 2, '2026-03-04', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		baidu := func(table string) string { return schemaFor(s.Dialect(), table) }
		for _, tt := range []struct {
			name string
			ddl  func(table string) []string
			says string // in the error, in any case: PostgreSQL names columns in lower case
		}{
			{"another program's", func(table string) []string {
				return []string{"CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, name VARCHAR(32) NOT NULL, note VARCHAR(32))",
					"INSERT INTO " + table + " (id, name, note) VALUES (1, 'a', NULL)", "INSERT INTO " + table + " VALUES (7, 'b', 'c')"}
			}, "no column HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED or CREATED; its own columns name and note"},
			{"Baidu's and a column of its own", func(table string) []string {
				return []string{baidu(table), "ALTER TABLE " + table + " ADD COLUMN region VARCHAR(16)",
					"INSERT INTO " + table + fmt.Sprintf(baiduRow, "'10.1.2.3'")}
			}, "its own column region"},
			{"Baidu's with an integer HOST_NAME", func(table string) []string {
				return []string{strings.Replace(baidu(table), "HOST_NAME VARCHAR(64)", "HOST_NAME INT", 1),
					"INSERT INTO " + table + fmt.Sprintf(baiduRow, "10")}
			}, "column HOST_NAME is int"},
			{"Baidu's and an integer OWNER", func(table string) []string {
				return []string{baidu(table), "ALTER TABLE " + table + " ADD COLUMN OWNER INT",
					"INSERT INTO " + table + fmt.Sprintf(baiduRow, "'10.1.2.3'")}
			}, "column OWNER is int"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				table := testTable(t, db)
				for _, stmt := range tt.ddl(table) {
					s.Exec(t, db, stmt)
				}
				before := s.Snapshot(t, db, table)
				err := EnsureSchema(testContext(t), Config{DB: db, Table: table})
				_, lerr := List(testContext(t), Config{DB: db, Table: table})
				for i, err := range []error{err, lerr} {
					name := []string{"EnsureSchema", "List"}[i]
					checkErr(t, name, err, uidgen.ErrConfig, []string{
						"worker: invalid config: table " + table + " is not Baidu's WORKER_NODE with or without the lease columns: ",
						"; it is left as it is (name another table: Config.Table, uidgen's -table; `uidgen schema -dialect " + s.Kind + "` prints the one it makes)"})
					if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tt.says)) {
						t.Errorf("%s: error %q does not say %q", name, err, tt.says)
					}
				}
				if after := s.Snapshot(t, db, table); after != before {
					t.Errorf("EnsureSchema or List changed the table it refused: it was\n%s\nand is\n%s", before, after)
				}
			})
		}
	})
}

// TestEnsureSchemaLeavesItsOwn: a table of this package's shape, with rows,
// is left as it was by EnsureSchema, and one that has some of the lease
// columns gets the others.
func TestEnsureSchemaLeavesItsOwn(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		ensureConcurrently(t, db, table)
		javaInsert(t, db, table)
		javaInsert(t, db, table)
		before := s.Snapshot(t, db, table)
		ensureConcurrently(t, db, table)
		if after := s.Snapshot(t, db, table); after != before {
			t.Errorf("EnsureSchema changed a table of its own shape: it was\n%s\nand is\n%s", before, after)
		}

		partial := testTable(t, db)
		s.Exec(t, db, schemaFor(s.Dialect(), partial))
		for i := range 2 {
			s.Exec(t, db, addColumn(s.Dialect(), partial, i))
		}
		ensureConcurrently(t, db, partial)
		checkColumns(t, db, partial)
	})
}

// javaInsert inserts a row as Baidu's Java WorkerNodeDAO does, leaving the
// ID to the table, and returns its ID. On PostgreSQL, where there is no
// Java assigner, it is the same INSERT.
func javaInsert(t testing.TB, db *sql.DB, table string) int64 {
	t.Helper()
	insert := "INSERT INTO " + table + insertSQL
	args := []any{"10.1.2.3", "1700000000000-4242", 2, "2026-03-04"}
	var id int64
	var err error
	if dialectOf(t, db) == dialect.Postgres {
		err = db.QueryRow(q(t, db, insert+" RETURNING ID"), args...).Scan(&id)
	} else {
		var res sql.Result
		if res, err = db.Exec(insert, args...); err == nil {
			id, err = res.LastInsertId()
		}
	}
	if err != nil {
		t.Fatalf("Java's insert: %v", err)
	}
	return id
}

// TestSchemaRuns runs the statements `uidgen schema` prints, the CREATE
// TABLE and then the ALTER TABLE of each lease column, and checks that they
// make what EnsureSchema makes.
func TestSchemaRuns(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		ddl, err := Schema(s.Kind, table)
		if err != nil {
			t.Fatal(err)
		}
		stmts := strings.Split(strings.TrimSuffix(ddl, ";\n"), ";\n")
		if len(stmts) != 1+len(leaseColumns) {
			t.Fatalf("Schema has %d statements, want the CREATE TABLE and %d ALTER TABLE:\n%s", len(stmts), len(leaseColumns), ddl)
		}
		for _, stmt := range stmts {
			if _, err := db.Exec(stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		checkColumns(t, db, table)
	})
}
