package worker

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

func TestAssignWorkerIDIncreases(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		d := newTestDisposable(t, db, testTable(t, db))
		ctx := testContext(t)

		var last int64
		for i := range 5 {
			id, err := d.AssignWorkerID(ctx)
			if err != nil {
				t.Fatalf("assign %d: %v", i, err)
			}
			if id <= last {
				t.Fatalf("assign %d: ID %d after %d, want it greater", i, id, last)
			}
			last = id
		}
	})
}

func TestAssignWorkerIDConcurrent(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		goroutines, each := sizetest.Pick(32, 8), sizetest.Pick(8, 4)
		d := newTestDisposable(t, db, testTable(t, db))
		ctx := testContext(t)

		ids := make([][]int64, goroutines)
		err := leasetest.AtOnce(goroutines, func(g int) error {
			for range each {
				id, err := d.AssignWorkerID(ctx)
				if err != nil {
					return fmt.Errorf("goroutine %d: %w", g, err)
				}
				ids[g] = append(ids[g], id)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}

		seen := make(map[int64]int)
		for g := range goroutines {
			for i, id := range ids[g] {
				if other, dup := seen[id]; dup {
					t.Fatalf("ID %d assigned to goroutines %d and %d", id, other, g)
				}
				seen[id] = g
				if i > 0 && id <= ids[g][i-1] {
					t.Errorf("goroutine %d: ID %d after %d, want it greater", g, id, ids[g][i-1])
				}
			}
		}
		if len(seen) != goroutines*each {
			t.Errorf("%d distinct IDs, want %d", len(seen), goroutines*each)
		}
	})
}

// TestAssignWorkerIDRow writes each of the node cases to the real server
// once and reads the row back; the assigned ID goes to the logger it was
// given.
func TestAssignWorkerIDRow(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		ctx := testContext(t)
		if err := EnsureSchema(ctx, Config{DB: db, Table: table}); err != nil {
			t.Fatalf("EnsureSchema: %v", err)
		}
		for _, tt := range nodeCases {
			t.Run(tt.name, func(t *testing.T) {
				var log bytes.Buffer
				d, err := NewDisposable(Config{DB: db, Table: table, Logger: slog.New(slog.NewTextHandler(&log, nil))})
				if err != nil {
					t.Fatal(err)
				}
				d.host, d.now = testHost(tt.env), func() time.Time { return nodeNow }
				id, err := d.AssignWorkerID(ctx)
				if err != nil {
					t.Fatalf("AssignWorkerID: %v", err)
				}

				var host, port, launch string
				var typ NodeType
				err = db.QueryRowContext(ctx, q(t, db, "SELECT HOST_NAME, PORT, TYPE, CAST(LAUNCH_DATE AS CHAR(10)) FROM "+table+" WHERE ID = ?"), id).
					Scan(&host, &port, &typ, &launch)
				if err != nil {
					t.Fatalf("read row %d: %v", id, err)
				}
				checkNode(t, typ, host, port, tt.typ, tt.host, tt.port, tt.portLike)
				if launch != "2026-03-04" {
					t.Errorf("row %d: LAUNCH_DATE %s, want 2026-03-04", id, launch)
				}
				for _, want := range []string{"id=" + strconv.FormatInt(id, 10), "type=" + tt.typ.String()} {
					if !strings.Contains(log.String(), want) {
						t.Errorf("log %q lacks %q", log.String(), want)
					}
				}
			})
		}
	})
}

// TestQuietByDefault: without Config.Logger, creating a table and assigning an
// ID log nothing, not even to slog's default logger.
func TestQuietByDefault(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		var log bytes.Buffer
		old := slog.Default()
		slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
		t.Cleanup(func() { slog.SetDefault(old) })

		table := testTable(t, db)
		ctx := testContext(t)
		if err := EnsureSchema(ctx, Config{DB: db, Table: table}); err != nil {
			t.Fatal(err)
		}
		d, err := NewDisposable(Config{DB: db, Table: table})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.AssignWorkerID(ctx); err != nil {
			t.Fatal(err)
		}
		if log.Len() != 0 {
			t.Errorf("logged %q without a logger", log.String())
		}
	})
}

// TestAssignWorkerIDRealHost inserts with nothing injected: the row must
// name this machine by an address that is not loopback, or by its name.
func TestAssignWorkerIDRealHost(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		d := newTestDisposable(t, db, table)
		ctx := testContext(t)
		id, err := d.AssignWorkerID(ctx)
		if err != nil {
			t.Fatalf("AssignWorkerID: %v", err)
		}
		var host, launch string
		if err := db.QueryRowContext(ctx, q(t, db, "SELECT HOST_NAME, CAST(LAUNCH_DATE AS CHAR(10)) FROM "+table+" WHERE ID = ?"), id).Scan(&host, &launch); err != nil {
			t.Fatalf("read row %d: %v", id, err)
		}
		if ip := net.ParseIP(host); host == "" || ip != nil && (ip.IsLoopback() || ip.IsLinkLocalUnicast()) {
			t.Errorf("HOST_NAME %q, want a routable address or a host name", host)
		}
		// The date may turn between the insert and this check.
		if today, yesterday := time.Now().Format(time.DateOnly), time.Now().AddDate(0, 0, -1).Format(time.DateOnly); launch != today && launch != yesterday {
			t.Errorf("LAUNCH_DATE %s, want %s", launch, today)
		}
	})
}

func TestAssignWorkerIDServerErrors(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		missing := testTable(t, db) // never created
		noTable := map[string]string{"mysql": "1146", "postgres": "42P01", "sqlite": "no such table"}[s.Kind]
		denied, unreachable := s.Denied(t), s.Unreachable(t)
		tests := []struct {
			name string
			db   *sql.DB
			want error
			text []string // in the message besides the operation
		}{
			{"missing table", db, uidgen.ErrNoTable, []string{"EnsureSchema", "`uidgen schema -dialect " + s.Kind + "`", noTable}},
			{"bad credentials", denied.Open(t), uidgen.ErrAccessDenied, denied.Says},
			{"unreachable", unreachable.Open(t), uidgen.ErrUnreachable, unreachable.Says},
		}
		if s.Kind == "sqlite" {
			// A read-only file still tells of the missing table first.
			tests[1].want, tests[1].text = uidgen.ErrNoTable, tests[0].text
		}
		testServerErrors(t, missing, tests)
	})
}

// testServerErrors runs the cases of TestAssignWorkerIDServerErrors.
func testServerErrors(t *testing.T, missing string, tests []struct {
	name string
	db   *sql.DB
	want error
	text []string
}) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewDisposable(Config{DB: tt.db, Table: missing})
			if err != nil {
				t.Fatal(err)
			}
			d.host.lookupEnv = envOf(nil)
			_, err = d.AssignWorkerID(testContext(t))
			checkErr(t, "AssignWorkerID", err, tt.want, append(tt.text, "worker: insert row into "+missing))
			if tt.want == uidgen.ErrNoTable {
				return // EnsureSchema makes the table, as it should
			}
			err = EnsureSchema(testContext(t), Config{DB: tt.db, Table: missing})
			checkErr(t, "EnsureSchema", err, tt.want, append(tt.text, "worker: read the columns of "+missing))
		})
	}
}

// checkErr fails the test unless err wraps want and its message has all of
// text.
func checkErr(t *testing.T, call string, err, want error, text []string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want one wrapping %q", call, err, want)
	}
	for _, s := range text {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%s: error %q lacks %q", call, err, s)
		}
	}
}

func TestAssignWorkerIDContext(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		d := newTestDisposable(t, db, table)

		// Hold a write lock on the table, so an insert waits until its context
		// ends.
		ctx := testContext(t)
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		lock := map[string][]string{
			"mysql":    {"LOCK TABLES " + table + " WRITE", "UNLOCK TABLES"},
			"postgres": {"BEGIN", "LOCK TABLE " + table + " IN EXCLUSIVE MODE", "ROLLBACK"},
			"sqlite":   {"BEGIN IMMEDIATE", "ROLLBACK"}, // the file's write lock
		}[s.Kind]
		for _, stmt := range lock[:len(lock)-1] {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		defer conn.ExecContext(ctx, lock[len(lock)-1])

		const wait = 200 * time.Millisecond
		tests := []struct {
			name string
			ctx  func() (context.Context, context.CancelFunc)
			want error
		}{
			{"cancelled before", func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				return ctx, cancel
			}, context.Canceled},
			{"deadline passed before", func() (context.Context, context.CancelFunc) {
				return context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
			}, context.DeadlineExceeded},
			{"deadline while waiting", func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(t.Context(), wait)
			}, context.DeadlineExceeded},
			{"cancelled while waiting", func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(t.Context())
				time.AfterFunc(wait, cancel)
				return ctx, cancel
			}, context.Canceled},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ctx, cancel := tt.ctx()
				defer cancel()
				start := time.Now()
				id, err := d.AssignWorkerID(ctx)
				if took := time.Since(start); took > wait+5*time.Second {
					t.Errorf("returned after %v, want about %v", took, wait)
				}
				checkErr(t, "AssignWorkerID", err, tt.want, []string{"insert row into " + table})
				if id != 0 {
					t.Errorf("ID %d with an error, want 0", id)
				}
			})
		}
	})
}

func TestAssignWorkerIDNoAutoIncrement(t *testing.T) {
	each(t, func(t *testing.T, s dbtest.Server, db *sql.DB) {
		table := testTable(t, db)
		ctx := testContext(t)
		// Baidu's columns, but an ID that defaults to 0 instead of counting.
		counting := map[string]string{"mysql": "AUTO_INCREMENT", "postgres": "GENERATED BY DEFAULT AS IDENTITY",
			"sqlite": "INTEGER PRIMARY KEY AUTOINCREMENT"}[s.Kind]
		uncounted := map[string]string{"sqlite": "BIGINT NOT NULL DEFAULT 0 PRIMARY KEY"}[s.Kind]
		ddl := strings.Replace(schemaFor(s.Dialect(), table), counting, cmp.Or(uncounted, "NOT NULL DEFAULT 0"), 1)
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
		d, err := NewDisposable(Config{DB: db, Table: table})
		if err != nil {
			t.Fatal(err)
		}
		d.host.lookupEnv = envOf(nil)
		_, err = d.AssignWorkerID(ctx)
		checkErr(t, "AssignWorkerID", err, ErrNoAutoIncrement, []string{"insert row into " + table, "ID 0"})
	})
}

// TestFailsBeforeSQL checks the errors found without a server: each comes
// before any statement is sent, so none is uidgen.ErrUnreachable although the
// database could not be reached.
func TestFailsBeforeSQL(t *testing.T) {
	nowhere, err := sql.Open("mysql", "root@tcp(127.0.0.1:1)/test")
	if err != nil {
		t.Fatal(err)
	}
	defer nowhere.Close()

	for _, tt := range []struct {
		name string
		cfg  Config
		want error
		text string
	}{
		{"nil db", Config{}, uidgen.ErrConfig, "DB is nil"},
		{"bad table", Config{DB: nowhere, Table: "WORKER NODE"}, uidgen.ErrConfig, `Table "WORKER NODE"`},
		{"table too long", Config{DB: nowhere, Table: strings.Repeat("w", 65)}, uidgen.ErrConfig, "65 bytes: want 1 to 64"},
		{"unknown driver", Config{DB: sql.OpenDB(fakeConnector{})}, uidgen.ErrConfig, "DB's driver is github.com/seed4d941b13/uidgen/worker.fakeDriver"},
		{"unknown dialect", Config{DB: nowhere, Dialect: "oracle"}, uidgen.ErrConfig, `Dialect "oracle"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewDisposable(tt.cfg)
			checkErr(t, "NewDisposable", err, tt.want, []string{"worker: ", tt.text})
			if d != nil {
				t.Errorf("NewDisposable = %v with an error, want nil", d)
			}
			l, err := NewLeased(tt.cfg)
			checkErr(t, "NewLeased", err, tt.want, []string{"worker: ", tt.text})
			if l != nil {
				t.Errorf("NewLeased = %v with an error, want nil", l)
			}
			err = EnsureSchema(t.Context(), tt.cfg)
			checkErr(t, "EnsureSchema", err, tt.want, []string{"worker: ", tt.text})
			_, err = List(t.Context(), tt.cfg)
			checkErr(t, "List", err, tt.want, []string{"worker: ", tt.text})
		})
	}

	d, err := NewDisposable(Config{DB: nowhere})
	if err != nil {
		t.Fatal(err)
	}
	d.host.lookupEnv = envOf(map[string]string{"JPAAS_HOST": "h"})
	_, err = d.AssignWorkerID(t.Context())
	checkErr(t, "AssignWorkerID", err, ErrContainerEnv, []string{"worker: describe this process: ", "JPAAS_HOST"})
}

// TestWrappedDriver: a driver wrapped by another package's (as an
// instrumenting driver does) hides the dialect; Config.Dialect names it.
func TestWrappedDriver(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Wrapped(t)
		table := testTable(t, db)
		_, err := NewDisposable(Config{DB: db, Table: table})
		checkErr(t, "NewDisposable on a wrapped driver", err, uidgen.ErrConfig, []string{"DB's driver is", "dbtest.wrappedDriver"})
		cfg := Config{DB: db, Table: table, Dialect: s.Kind}
		if err := EnsureSchema(testContext(t), cfg); err != nil {
			t.Fatal(err)
		}
		d, err := NewDisposable(cfg)
		if err != nil {
			t.Fatal(err)
		}
		d.host.lookupEnv = envOf(nil)
		if id, err := d.AssignWorkerID(testContext(t)); err != nil || id != 1 {
			t.Fatalf("AssignWorkerID with Dialect %q = %d, %v; want 1", s.Kind, id, err)
		}
	})
}

// fakeConnector opens a *sql.DB whose driver is neither MySQL's nor pgx's.
type fakeConnector struct{}

func (fakeConnector) Connect(context.Context) (driver.Conn, error) { return nil, errors.New("fake") }
func (fakeConnector) Driver() driver.Driver                        { return fakeDriver{} }

type fakeDriver struct{}

func (fakeDriver) Open(string) (driver.Conn, error) { return nil, errors.New("fake") }

// TestJavaInterop writes one row as Baidu's Java WorkerNodeDAO does and one
// with Disposable into one WORKER_NODE made by Baidu's own DDL.
func TestJavaInterop(t *testing.T) {
	// Baidu's Java assigner speaks MySQL only.
	db := testDatabase(t, dbtest.Shared(t, "mysql"))
	ctx := testContext(t)
	if err := EnsureSchema(ctx, Config{DB: db}); err != nil {
		t.Fatalf("EnsureSchema: %v", err)
	}

	// WORKER_NODE.xml's addWorkerNode; MyBatis sends java.util.Date
	// launchDate as a TIMESTAMP, time of day and all.
	res, err := db.ExecContext(ctx,
		"INSERT INTO WORKER_NODE (HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED) VALUES (?, ?, ?, ?, NOW(), NOW())",
		"10.1.2.3", "1700000000000-4242", 2, time.Now())
	if err != nil {
		t.Fatalf("Java's insert: %v", err)
	}
	javaID, err := res.LastInsertId()
	if err != nil {
		t.Fatal(err)
	}

	d, err := NewDisposable(Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	d.host.lookupEnv = envOf(nil)
	goID, err := d.AssignWorkerID(ctx)
	if err != nil {
		t.Fatalf("AssignWorkerID: %v", err)
	}
	if goID == javaID {
		t.Fatalf("Java and Go both got worker ID %d", goID)
	}

	rows, err := db.QueryContext(ctx, "SELECT ID, TYPE, LAUNCH_DATE FROM WORKER_NODE ORDER BY ID")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id int64
		var typ NodeType
		var launch string
		if err := rows.Scan(&id, &typ, &launch); err != nil {
			t.Fatal(err)
		}
		if _, err := time.Parse(time.DateOnly, launch); err != nil {
			t.Errorf("row %d: LAUNCH_DATE %q is not a date", id, launch)
		}
		got = append(got, fmt.Sprint(id, typ))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprint(javaID, Actual), fmt.Sprint(goID, Actual)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}
