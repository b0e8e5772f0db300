package worker

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
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
// checks the server made Baidu's columns of it.
func TestEnsureSchema(t *testing.T) {
	db := testDB(t)
	table := testTable(t, db)
	ctx := testContext(t)

	var wg sync.WaitGroup
	errs := make([]error, 8)
	gate := make(chan struct{})
	for i := range errs {
		wg.Go(func() {
			<-gate
			errs[i] = EnsureSchema(ctx, db, WithTable(table))
		})
	}
	close(gate)
	wg.Wait()
	errs = append(errs, EnsureSchema(ctx, db, WithTable(table)))
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}
	checkColumns(t, db, table)
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
// the columns, comment and engine of WORKER_NODE.sql.
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
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("columns of %s:\n%s\nwant:\n%s", table, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
