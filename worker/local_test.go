package worker

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// TestLocalHolderGone: on a SQLite file a row names its holder's process,
// and a pinned lease (a range of one ID) whose holder is gone takes the ID
// at once, above its reservation, where a live holder's ID is refused with
// an error that names the holder.
func TestLocalHolderGone(t *testing.T) {
	s := dbtest.Shared(t, "sqlite")
	db := s.Open(t)
	pinned := Config{LeaseTTL: time.Minute, WorkerIDs: uidgen.WorkerIDRange{Min: 5, Max: 5}}
	first := newTestLeased(t, db, DefaultTable, pinned)
	held := mustLease(t, first, 100)
	if held.WorkerID() != 5 {
		t.Fatalf("pinned lease got ID %d, want 5", held.WorkerID())
	}
	host, _ := os.Hostname()
	var name, port string
	if err := db.QueryRow("SELECT HOST_NAME, PORT FROM "+DefaultTable+" WHERE ID = 5").Scan(&name, &port); err != nil {
		t.Fatal(err)
	}
	if name != host || port != "pid-"+strconv.Itoa(os.Getpid()) {
		t.Errorf("row names %q on %q, want pid-%d on %q", port, name, os.Getpid(), host)
	}

	t.Run("alive", func(t *testing.T) {
		// Under a context with no deadline the full range fails once it
		// stayed full for the second's TTL, whatever the machine's load:
		// the error comes from a pass that named the holder.
		short := pinned
		short.LeaseTTL = leasing.MinTTL
		second := newTestLeased(t, db, DefaultTable, short)
		second.poll = 10 * time.Millisecond
		second.gone = func(int) bool { return false }
		_, err := second.LeaseWorkerID(t.Context(), 100)
		checkErr(t, "LeaseWorkerID", err, uidgen.ErrNoFreeID, []string{
			"all 1 IDs from 5 to 5 are held", "worker ID 5 held by " + port + " on host " + host + " since "})
	})

	t.Run("gone", func(t *testing.T) {
		second := newTestLeased(t, db, DefaultTable, pinned)
		var asked []int
		second.gone = func(pid int) bool { asked = append(asked, pid); return true }
		// The holder judged gone still renews, in this process: the
		// takeover waits for no clock, so that one pass takes the ID.
		second.catchUp = 0
		// Well within the TTL of a minute: the lease is taken because its
		// holder is gone, not because it expired.
		ctx, cancel := context.WithTimeout(testContext(t), 5*time.Second)
		defer cancel()
		taken, err := second.LeaseWorkerID(ctx, 100)
		if err != nil {
			t.Fatalf("LeaseWorkerID with the holder gone: %v", err)
		}
		defer taken.Release(testContext(t), taken.First()-1)
		if taken.WorkerID() != 5 || taken.First() <= held.Reserved() {
			t.Errorf("took ID %d from second %d, want 5 above the holder's reservation %d", taken.WorkerID(), taken.First(), held.Reserved())
		}
		if len(asked) != 1 || asked[0] != os.Getpid() {
			t.Errorf("asked whether %v are gone, want [%d]", asked, os.Getpid())
		}
		// The first holder lost the row: it extends nothing.
		if err := held.Wait(ctx, held.Reserved()+1); !errors.Is(err, uidgen.ErrLeaseLost) {
			t.Errorf("old holder's Wait beyond its reservation: %v, want ErrLeaseLost", err)
		}
	})
}

// TestLocalOnlyForFiles: on a server, rows describe the host as Baidu's
// do, and no holder is judged gone by its process.
func TestLocalOnlyForFiles(t *testing.T) {
	for _, kind := range dbtest.ServerKinds {
		t.Run(kind, func(t *testing.T) {
			s := dbtest.Shared(t, kind)
			db := s.Open(t)
			table := testTable(t, db)
			l := newTestLeased(t, db, table, Config{})
			if l.host.local {
				t.Fatalf("%s: a server's table counted as a local file", kind)
			}
			mustLease(t, l, 100)
			var port string
			if err := db.QueryRow("SELECT PORT FROM " + table).Scan(&port); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(port, pidPrefix) {
				t.Errorf("PORT %q, want Baidu's millis-random", port)
			}
		})
	}
}

// TestLocalDurabilityWarning: a SQLite connection that lets a commit return
// before it is on disk (synchronous below FULL) is warned of, once, at the
// first lease; one with FULL is not.
func TestLocalDurabilityWarning(t *testing.T) {
	for _, tt := range []struct {
		synchronous string
		warned      bool
	}{{"FULL", false}, {"NORMAL", true}, {"OFF", true}} {
		t.Run(tt.synchronous, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "uidgen.db")
			db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous("+tt.synchronous+")")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var logs bytes.Buffer
			l := newTestLeased(t, db, DefaultTable, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			mustLease(t, l, 100)
			mustLease(t, l, 100)
			warned := strings.Count(logs.String(), "level=WARN")
			if want := map[bool]int{true: 1, false: 0}[tt.warned]; warned != want ||
				tt.warned && !strings.Contains(logs.String(), "synchronous(FULL) in the DSN") {
				t.Errorf("synchronous %s: %d warnings, want %d saying the fix:\n%s", tt.synchronous, warned, want, logs.String())
			}
		})
	}
}

// TestLocalFileLocked: a SQLite file whose write lock another process
// keeps (one stopped while it writes keeps it until it runs again) makes
// LeaseWorkerID look again until ctx ends, as a full range does: it takes
// an ID once the lock is let go, and otherwise fails naming the lock.
func TestLocalFileLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "uidgen.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(50)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l := newTestLeased(t, db, DefaultTable, Config{})
	l.poll = 20 * time.Millisecond
	lock := func() (unlock func()) {
		locker, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := locker.Conn(t.Context())
		if err == nil {
			_, err = conn.ExecContext(t.Context(), "BEGIN IMMEDIATE")
		}
		if err != nil {
			t.Fatal(err)
		}
		return func() { conn.ExecContext(context.Background(), "ROLLBACK"); conn.Close(); locker.Close() }
	}

	t.Run("let go", func(t *testing.T) {
		unlock := lock()
		time.AfterFunc(500*time.Millisecond, unlock) // ten busy timeouts
		ctx, cancel := context.WithTimeout(testContext(t), time.Minute)
		defer cancel()
		s, err := l.LeaseWorkerID(ctx, 100)
		if err != nil {
			t.Fatalf("LeaseWorkerID after the lock was let go: %v", err)
		}
		s.Release(testContext(t), s.First()-1)
	})

	t.Run("held", func(t *testing.T) {
		unlock := lock()
		defer unlock()
		ctx, cancel := context.WithTimeout(testContext(t), 3*time.Second) // sixty busy timeouts, on a loaded machine several passes
		defer cancel()
		_, err := l.LeaseWorkerID(ctx, 100)
		checkErr(t, "LeaseWorkerID with the file locked", err, uidgen.ErrUnreachable,
			[]string{"held the SQLite file's write lock until the context ended", "deadline exceeded", "database is locked"})
	})
}

// TestLocalCrashesDoNotAddUp: on a SQLite file, with the defaults, a holder
// that died leaves its ID reserved a few seconds ahead, and the next holder
// of that ID waits for the clock to come within a second of the
// reservation's end rather than start ahead of it. So a crash loop on a
// pinned ID keeps its IDs near the clock: each holder starts above the
// last one's reservation, at most a second ahead, and one killed while it
// waits changes nothing.
func TestLocalCrashesDoNotAddUp(t *testing.T) {
	s := dbtest.Shared(t, "sqlite")
	db := s.Open(t)
	pinned := Config{WorkerIDs: uidgen.WorkerIDRange{Min: 5, Max: 5}}
	host, _ := os.Hostname()
	l := newTestLeased(t, db, DefaultTable, pinned)
	l.gone = func(int) bool { return true }
	prev := mustLease(t, l, 100)
	for crash := range 2 {
		// The holder dies: its renewer is the test's own process, so the
		// row is made to name another owner, as a dead holder's does.
		reserved := prev.Reserved()
		if ahead := reserved - time.Now().Unix(); ahead < 1 || ahead > int64(maxCatchUp/time.Second) {
			t.Fatalf("crash %d: the holder reserved %d s ahead, want a few seconds with the SQLite defaults", crash, ahead)
		}
		if _, err := db.Exec("UPDATE "+DefaultTable+" SET OWNER = 'dead', HOST_NAME = ?, PORT = 'pid-1' WHERE ID = 5", host); err != nil {
			t.Fatal(err)
		}
		// A process killed while it waits for the clock leaves the row
		// as it found it: it had taken nothing.
		ctx, cancel := context.WithCancel(testContext(t))
		time.AfterFunc(500*time.Millisecond, cancel)
		if _, err := l.LeaseWorkerID(ctx, 100); !errors.Is(err, context.Canceled) {
			t.Fatalf("crash %d: LeaseWorkerID cancelled while it waits = %v, want context.Canceled", crash, err)
		}
		if r := readRow(t, db, DefaultTable, 5); r.reservedUntil.Int64 != reserved || r.owner.String != "dead" {
			t.Fatalf("crash %d: after a lease cancelled while it waited the row is reserved to %d, owned by %q; want %d, 'dead', as it was",
				crash, r.reservedUntil.Int64, r.owner.String, reserved)
		}
		next, err := l.LeaseWorkerID(testContext(t), 100)
		if err != nil {
			t.Fatalf("crash %d: LeaseWorkerID: %v", crash, err)
		}
		if now := time.Now().Unix(); next.First() != reserved+1 || next.First() > now+1 {
			t.Fatalf("crash %d: the next holder starts at %d with the clock at %d; want %d, above the dead holder's reservation, and at most a second ahead of the clock",
				crash, next.First(), now, reserved+1)
		}
		prev = next.(*lease)
	}
}

// TestLocalRestartsDoNotAddUp: on a SQLite file, holders that each release
// the second after the last one's first, faster than the clock moves, start
// at most a second ahead of the clock: the next waits for it.
func TestLocalRestartsDoNotAddUp(t *testing.T) {
	l := newTestLeased(t, dbtest.Shared(t, "sqlite").Open(t), DefaultTable, Config{WorkerIDs: uidgen.WorkerIDRange{Min: 5, Max: 5}})
	for run := range 4 {
		s, err := l.LeaseWorkerID(testContext(t), 100)
		if err != nil {
			t.Fatal(err)
		}
		if now := time.Now().Unix(); s.First() > now+1 {
			t.Fatalf("run %d starts at %d with the clock at %d, more than a second ahead", run, s.First(), now)
		}
		if err := s.Release(testContext(t), max(s.First(), time.Now().Unix())+1); err != nil {
			t.Fatal(err)
		}
	}
}
