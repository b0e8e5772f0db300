package worker

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestSchema(t *testing.T) {
	file, err := os.ReadFile("WORKER_NODE.sql")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(file), DefaultTable); n != 1 {
		t.Fatalf("WORKER_NODE.sql names %s %d times, want once: Schema replaces one", DefaultTable, n)
	}
	tests := []struct {
		table string
		want  string
	}{
		{"", string(file)},
		{DefaultTable, string(file)},
		{"uid_worker_2", strings.Replace(string(file), "CREATE TABLE WORKER_NODE\n", "CREATE TABLE uid_worker_2\n", 1)},
		{"_x", strings.Replace(string(file), "WORKER_NODE", "_x", 1)},
		{strings.Repeat("w", maxIdentifier), strings.Replace(string(file), "WORKER_NODE", strings.Repeat("w", maxIdentifier), 1)},
	}
	for _, tt := range tests {
		t.Run(tt.table, func(t *testing.T) {
			got, err := Schema(tt.table)
			if err != nil || got != tt.want {
				t.Errorf("Schema(%q) = %q, %v; want %q", tt.table, got, err, tt.want)
			}
		})
	}
}

func TestSchemaBadTable(t *testing.T) {
	for _, table := range []string{
		"1WORKER", "WORKER NODE", "WORKER-NODE", "test.WORKER_NODE", "W`N", "W;DROP TABLE x",
		"WÖRKER", strings.Repeat("w", maxIdentifier+1),
	} {
		t.Run(table, func(t *testing.T) {
			if got, err := Schema(table); !errors.Is(err, ErrBadTable) || !strings.Contains(err.Error(), table) {
				t.Errorf("Schema(%q) = %q, %v; want an error wrapping %q and naming the table", table, got, err, ErrBadTable)
			}
		})
	}
}

// TestEnsureSchema creates the table once from many goroutines, again, and
// checks the server made Baidu's columns and the lease columns of it.
func TestEnsureSchema(t *testing.T) {
	db := testDB(t)
	table := testTable(t, db)
	ensureConcurrently(t, db, table)
	checkColumns(t, db, table)
}

// ensureConcurrently runs EnsureSchema on table from many goroutines at
// once, then once more.
func ensureConcurrently(t *testing.T, db *sql.DB, table string) {
	t.Helper()
	ctx := testContext(t)
	err := atOnce(8, func(int) error { return EnsureSchema(ctx, db, WithTable(table)) })
	if err == nil {
		err = EnsureSchema(ctx, db, WithTable(table))
	}
	if err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}
}

// TestEnsureSchemaDefault runs the package's EnsureSchema, Baidu's DDL
// unchanged, in a database of its own.
func TestEnsureSchemaDefault(t *testing.T) {
	db := testDatabase(t)
	for range 2 {
		if err := EnsureSchema(testContext(t), db); err != nil {
			t.Fatalf("EnsureSchema: %v", err)
		}
	}
	checkColumns(t, db, DefaultTable)
}

// checkColumns fails the test unless table, in db's current database, has
// the columns, comment and engine of WORKER_NODE.sql, and the lease columns
// after them.
func checkColumns(t *testing.T, db *sql.DB, table string) {
	t.Helper()
	var comment, engine string
	err := db.QueryRow("SELECT TABLE_COMMENT, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?", table).
		Scan(&comment, &engine)
	if err != nil {
		t.Fatalf("table %s: %v", table, err)
	}
	if comment != "DB WorkerID Assigner for UID Generator" || !strings.EqualFold(engine, "InnoDB") {
		t.Errorf("table %s: comment %q, engine %s", table, comment, engine)
	}

	rows, err := db.Query(`SELECT COLUMN_NAME, DATA_TYPE, COALESCE(CHARACTER_MAXIMUM_LENGTH, 0), IS_NULLABLE, EXTRA, COLUMN_KEY, COLUMN_COMMENT
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, table)
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
	want := []string{
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
	db := testDB(t)
	table := testTable(t, db)
	ctx := testContext(t)
	if _, err := db.ExecContext(ctx, schemaFor(table)); err != nil {
		t.Fatal(err)
	}
	javaID := javaInsert(t, db, table)
	ensureConcurrently(t, db, table)
	checkColumns(t, db, table)

	var leased int
	var owner, leaseUntil, reservedUntil sql.NullInt64
	err := db.QueryRowContext(ctx, "SELECT LEASED, OWNER, LEASE_UNTIL, RESERVED_UNTIL FROM "+table+" WHERE ID = ?", javaID).
		Scan(&leased, &owner, &leaseUntil, &reservedUntil)
	if err != nil {
		t.Fatal(err)
	}
	if leased != 0 || owner.Valid || leaseUntil.Valid || reservedUntil.Valid {
		t.Errorf("Java's row after the upgrade: LEASED %d, OWNER %v, LEASE_UNTIL %v, RESERVED_UNTIL %v; want 0 and NULLs",
			leased, owner, leaseUntil, reservedUntil)
	}
	javaInsert(t, db, table) // Baidu's INSERT still works on the new columns
}

// javaInsert inserts a row as Baidu's Java WorkerNodeDAO does and returns
// its ID.
func javaInsert(t testing.TB, db *sql.DB, table string) int64 {
	t.Helper()
	res, err := db.Exec("INSERT INTO "+table+" (HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED) VALUES (?, ?, ?, ?, NOW(), NOW())",
		"10.1.2.3", "1700000000000-4242", 2, "2026-03-04")
	if err != nil {
		t.Fatalf("Java's insert: %v", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestLeaseSchema checks the statements `uidgen schema` prints for the
// lease columns, and that they bring Baidu's table to what EnsureSchema
// makes.
func TestLeaseSchema(t *testing.T) {
	got, err := LeaseSchema("uid_worker_2")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "ALTER TABLE uid_worker_2 ADD COLUMN "); n != len(leaseColumns) {
		t.Errorf("LeaseSchema has %d ALTER TABLE statements, want %d:\n%s", n, len(leaseColumns), got)
	}
	if _, err := LeaseSchema("WORKER NODE"); !errors.Is(err, ErrBadTable) {
		t.Errorf("LeaseSchema(%q): %v, want an error wrapping %q", "WORKER NODE", err, ErrBadTable)
	}

	db := testDB(t)
	table := testTable(t, db)
	ddl, err := LeaseSchema(table)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range append([]string{schemaFor(table)}, strings.Split(strings.TrimSuffix(ddl, ";\n"), ";\n")...) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	checkColumns(t, db, table)
}
