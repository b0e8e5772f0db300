// Package sqlitedb opens the SQLite files that the command and the tests
// keep worker IDs and segment tags in, with the settings the packages'
// guarantees rest on, through modernc.org/sqlite: SQLite compiled to Go,
// so no cgo is needed and CGO_ENABLED=0 builds keep working.
//
// A library user opens SQLite as it opens any database, with the driver of
// its choice and a DSN; DSN shows the settings to give it.
package sqlitedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers "sqlite"

	"github.com/seed4d941b13/uidgen/internal/dialect"
)

// BusyTimeout is how long a statement waits for another process to let go
// of the file's write lock before it fails. Writes here are short (one
// UPDATE or INSERT), so a lock held this long is a process stuck or paused
// holding it; a caller's shorter deadline ends the wait sooner.
const BusyTimeout = 5 * time.Second

// DSN returns the DSN that opens the SQLite file at path:
//   - journal_mode WAL: readers (uidgen workers) never wait for a writer.
//   - synchronous FULL: a commit is on disk, the write-ahead log synced,
//     before the statement returns, so a reservation or a claim that a
//     process goes on to use survives a machine crash, not only a process
//     crash (NORMAL would lose the last commits to a power cut).
//   - busy_timeout: a writer waits for another's lock (BusyTimeout) rather
//     than failing at once.
//
// With readOnly, the file is opened read-only and must exist: it is read
// and never changed, for listing.
func DSN(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	if readOnly {
		q.Add("mode", "ro")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Open opens the SQLite file at path (DSN), creating the file and its
// directory where missing unless readOnly, and checks that it is a
// database: it returns an error naming the path where the directory
// cannot be made or written, the file cannot be read, or it is not a
// SQLite database.
func Open(path string, readOnly bool) (*sql.DB, error) {
	if path == "" {
		return nil, errors.New("no SQLite file named")
	}
	// An in-memory database is gone when the process ends: it would
	// remember nothing across a restart, which is what the file is for.
	if path == ":memory:" || strings.HasPrefix(path, "file::memory:") {
		return nil, fmt.Errorf("SQLite %s: an in-memory database remembers nothing across a restart; name a file", path)
	}
	if !readOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("SQLite file %s: create its directory: %w", path, err)
		}
	} else if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("SQLite file %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", DSN(path, readOnly))
	if err != nil {
		return nil, fmt.Errorf("SQLite file %s: %w", path, err)
	}
	// The first statement opens the file and runs the pragmas: a file that
	// is not a database, or a directory that cannot be written, says so
	// here rather than at the first lease.
	ctx := context.Background()
	if err := probe(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("SQLite file %s: %w", path, dialect.SQLite.Cause(ctx, err))
	}
	return db, nil
}

// probe opens a first connection to db, running the DSN's pragmas. SQLite
// changes a file's journal mode without calling the busy handler, so when
// processes open a new file at once, all but the one that makes it WAL
// can fail at once with SQLITE_BUSY; probe tries again, and starts no new
// try once BusyTimeout, what a statement waits for a lock, has passed.
func probe(ctx context.Context, db *sql.DB) error {
	deadline := time.Now().Add(BusyTimeout)
	pause := time.Millisecond
	for {
		var mode string
		err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
		if err == nil || dialect.SQLite.Kind(err) != dialect.Busy || time.Now().Add(pause).After(deadline) {
			return err
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}
