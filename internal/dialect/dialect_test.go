package dialect

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/seed4d941b13/uidgen"
)

func TestOf(t *testing.T) {
	for _, tt := range []struct {
		driver string
		want   *Dialect
	}{{"mysql", MySQL}, {"pgx", Postgres}, {"sqlite", SQLite}} {
		db, err := sql.Open(tt.driver, "")
		if err != nil {
			t.Fatal(err)
		}
		if d, err := Of(db); d != tt.want || err != nil {
			t.Errorf("Of(sql.Open(%q)) = %v, %v; want %v", tt.driver, d, err, tt.want)
		}
		db.Close()
	}
	if d, err := Of(nil); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), "DB is nil") || d != nil {
		t.Errorf("Of(nil) = %v, %v; want an error wrapping %q saying DB is nil", d, err, uidgen.ErrConfig)
	}
}

func TestNamed(t *testing.T) {
	for name, want := range map[string]*Dialect{"mysql": MySQL, "MariaDB": MySQL, "postgres": Postgres, "PostgreSQL": Postgres, "pgx": Postgres,
		"sqlite": SQLite, "SQLite3": SQLite} {
		if d, err := Named(name); d != want || err != nil {
			t.Errorf("Named(%q) = %v, %v; want %v", name, d, err, want)
		}
	}
	if _, err := Named("oracle"); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), `Dialect "oracle"`) {
		t.Errorf("Named(oracle): %v, want an error wrapping %q naming the dialect", err, uidgen.ErrConfig)
	}
}

func TestRebind(t *testing.T) {
	const query = "UPDATE t SET a = ? WHERE b = ? AND c <= ?"
	if got := MySQL.Rebind(query); got != query {
		t.Errorf("MySQL.Rebind = %q, want it unchanged", got)
	}
	if got := SQLite.Rebind(query); got != query {
		t.Errorf("SQLite.Rebind = %q, want it unchanged", got)
	}
	if got, want := Postgres.Rebind(query), "UPDATE t SET a = $1 WHERE b = $2 AND c <= $3"; got != want {
		t.Errorf("Postgres.Rebind = %q, want %q", got, want)
	}
}

// TestKind sorts the drivers' own error values, wrapped as database/sql
// and this module wrap them: it fails if a driver renames what Kind reads.
func TestKind(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("insert: %w", err) }
	for _, tt := range []struct {
		d    *Dialect
		err  error
		want Kind
	}{
		{MySQL, wrap(&mysql.MySQLError{Number: 1146, Message: "Table 'x' doesn't exist"}), NoTable},
		{MySQL, wrap(&mysql.MySQLError{Number: 1062}), DupKey},
		{MySQL, errors.Join(errors.New("x"), &mysql.MySQLError{Number: 1045}), AccessDenied},
		{MySQL, wrap(&mysql.MySQLError{Number: 1064}), Other},
		{MySQL, errors.New("1146"), Other},
		{Postgres, wrap(&pgconn.PgError{Code: "42P01"}), NoTable},
		{Postgres, wrap(&pgconn.PgError{Code: "23505"}), DupKey},
		{Postgres, wrap(&pgconn.PgError{Code: "42701"}), DupColumn},
		{Postgres, wrap(&pgconn.PgError{Code: "42710"}), TableExists},
		{Postgres, wrap(&pgconn.PgError{Code: "42601"}), Other},
		{Postgres, nil, Other},
	} {
		if got := tt.d.Kind(tt.err); got != tt.want {
			t.Errorf("%v.Kind(%v) = %d, want %d", tt.d, tt.err, got, tt.want)
		}
	}
}

// TestSQLiteKind makes each failure that Kind sorts happen in a real SQLite
// file through the driver, and checks what Kind and Cause make of it: it
// fails if the driver or SQLite change what Kind reads.
func TestSQLiteKind(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "kind.db")
	open := func(t *testing.T, dsn string) *sql.DB {
		db, err := sql.Open("sqlite", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open(t, "file:"+path+"?_pragma=busy_timeout(100)&_pragma=journal_mode(WAL)")
	for _, stmt := range []string{
		"CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)",
		"INSERT INTO t VALUES (1, 'a')",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	notDB := filepath.Join(dir, "not.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Another connection holds the write lock while the busy cases run.
	locker := open(t, "file:"+path)
	conn, err := locker.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, tt := range []struct {
		name string
		db   *sql.DB
		stmt string
		want Kind
	}{
		{"dup key", db, "INSERT INTO t VALUES (1, 'b')", DupKey},
		{"no table", db, "SELECT * FROM missing", NoTable},
		{"no column", db, "SELECT missing FROM t", NoColumn},
		{"no column to insert", db, "INSERT INTO t (id, missing) VALUES (2, 'x')", NoColumn},
		{"table exists", db, "CREATE TABLE t (id INTEGER)", TableExists},
		{"dup column", db, "ALTER TABLE t ADD COLUMN v TEXT", DupColumn},
		{"null column", db, "INSERT INTO t (id) VALUES (3)", NullColumn},
		{"read-only", open(t, "file:"+path+"?mode=ro"), "INSERT INTO t VALUES (4, 'd')", AccessDenied},
		{"not a database", open(t, "file:"+notDB), "SELECT 1 FROM sqlite_master", NotDatabase},
		{"no directory", open(t, "file:"+filepath.Join(dir, "none", "x.db")), "SELECT 1", Unreachable},
		{"busy", db, "BEGIN IMMEDIATE", Busy},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == Busy {
				if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
					t.Fatal(err)
				}
				defer conn.ExecContext(ctx, "ROLLBACK")
			}
			_, err := tt.db.ExecContext(ctx, tt.stmt)
			if got := SQLite.Kind(err); got != tt.want {
				t.Errorf("Kind(%v) = %d, want %d", err, got, tt.want)
			}
			cause := SQLite.Cause(ctx, err)
			switch tt.want {
			case AccessDenied:
				if !errors.Is(cause, uidgen.ErrAccessDenied) {
					t.Errorf("Cause(%v) = %v, want uidgen.ErrAccessDenied", err, cause)
				}
			case Busy, Unreachable:
				// A file is no server: the message says what the file's
				// trouble is, and errors.Is still finds the sentinel.
				if !errors.Is(cause, uidgen.ErrUnreachable) || strings.Contains(cause.Error(), "server") || !strings.Contains(cause.Error(), "SQLite") {
					t.Errorf("Cause(%v) = %v, want uidgen.ErrUnreachable, saying SQLite and no server", err, cause)
				}
			case NotDatabase:
				if !strings.Contains(cause.Error(), "not a SQLite database") {
					t.Errorf("Cause(%v) = %v, want it to say so", err, cause)
				}
			}
		})
	}
}

func TestCause(t *testing.T) {
	ctx := context.Background()
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	for _, tt := range []struct {
		d    *Dialect
		err  error
		want error
	}{
		{MySQL, dial, uidgen.ErrUnreachable},
		{Postgres, fmt.Errorf("failed to connect: %w", dial), uidgen.ErrUnreachable},
		{Postgres, &pgconn.PgError{Code: "57P01"}, uidgen.ErrUnreachable}, // admin_shutdown
		{MySQL, fmt.Errorf("exec: %w", driver.ErrBadConn), uidgen.ErrUnreachable},
		{Postgres, fmt.Errorf("read: %w", io.ErrUnexpectedEOF), uidgen.ErrUnreachable},
		{Postgres, &pgconn.PgError{Code: "28P01"}, uidgen.ErrAccessDenied},
		{MySQL, &mysql.MySQLError{Number: 1698}, uidgen.ErrAccessDenied},
	} {
		if got := tt.d.Cause(ctx, tt.err); !errors.Is(got, tt.want) || !errors.Is(got, tt.err) {
			t.Errorf("%v.Cause(%v) = %v, want it wrapping %q and the error", tt.d, tt.err, got, tt.want)
		}
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if got := MySQL.Cause(done, dial); !errors.Is(got, context.Canceled) || errors.Is(got, uidgen.ErrUnreachable) {
		t.Errorf("Cause after cancel = %v, want it wrapping context.Canceled and not %q", got, uidgen.ErrUnreachable)
	}
}

// TestForTable: the checks made before anything is sent, in order: the
// DB, then the dialect, then the table name.
func TestForTable(t *testing.T) {
	db, err := sql.Open("mysql", "root@tcp(127.0.0.1:1)/x")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tt := range []struct {
		db      *sql.DB
		dialect string
		table   string
		want    error
		text    string // what the error names
		d       *Dialect
	}{
		{nil, "", "T", uidgen.ErrConfig, "DB is nil", nil},
		{db, "oracle", "T", uidgen.ErrConfig, `Dialect "oracle"`, nil},
		{db, "", "A B", uidgen.ErrConfig, `Table "A B" has ' '`, nil},
		{db, "postgres", strings.Repeat("t", 64), uidgen.ErrConfig, "is 64 bytes: want 1 to 63", nil},
		{db, "", strings.Repeat("t", 64), nil, "", MySQL},
		{db, "postgres", "T", nil, "", Postgres},
	} {
		d, err := ForTable(tt.db, tt.dialect, tt.table)
		if !errors.Is(err, tt.want) || err != nil && !strings.Contains(err.Error(), tt.text) || d != tt.d {
			t.Errorf("ForTable(%v, %q, %q) = %v, %v; want %v, %v naming %q", tt.db != nil, tt.dialect, tt.table, d, err, tt.d, tt.want, tt.text)
		}
	}
}

// TestExplain: a Kind that the hints name is wrapped in its sentinel with
// the fix; others are Cause's answer; a done context comes first.
func TestExplain(t *testing.T) {
	errMissing := errors.New("missing")
	hints := map[Kind]Hint{NoTable: {Err: errMissing, Fix: "make it"}}
	noTable := &mysql.MySQLError{Number: 1146, Message: "Table 'x' doesn't exist"}
	err := MySQL.Explain(t.Context(), noTable, hints)
	if !errors.Is(err, errMissing) || !errors.Is(err, noTable) || !strings.HasSuffix(err.Error(), "(make it)") {
		t.Errorf("Explain(no table) = %v, want it wrapped in the hint's sentinel, with the fix", err)
	}
	if err := MySQL.Explain(t.Context(), &mysql.MySQLError{Number: 1045}, hints); !errors.Is(err, uidgen.ErrAccessDenied) || errors.Is(err, errMissing) {
		t.Errorf("Explain(access denied) = %v, want uidgen.ErrAccessDenied alone", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := MySQL.Explain(ctx, noTable, hints); !errors.Is(err, context.Canceled) || errors.Is(err, errMissing) {
		t.Errorf("Explain under a done context = %v, want context.Canceled and no hint", err)
	}
}

// TestSchemaCommand: each dialect's fix names its own -dialect, as
// `uidgen schema` takes it.
func TestSchemaCommand(t *testing.T) {
	for d, want := range map[*Dialect]string{
		MySQL:    "uidgen schema -dialect mysql",
		Postgres: "uidgen schema -segment -dialect postgres",
		SQLite:   "uidgen schema -segment -dialect sqlite",
	} {
		flags := "-segment"
		if d == MySQL {
			flags = ""
		}
		if got := d.SchemaCommand(flags); got != want {
			t.Errorf("%v.SchemaCommand(%q) = %q, want %q", d, flags, got, want)
		}
		if _, err := Named(d.key); err != nil {
			t.Errorf("Named(%q), %v's key: %v", d.key, d, err)
		}
	}
}
