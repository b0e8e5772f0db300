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
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
// database. Its errors name the path and say what is wrong: the directory
// cannot be made, the path is a directory, this user may not read the
// file, or (unless readOnly) write it or create it, or create the
// write-ahead log beside it; the file is not a SQLite database.
//
// Read-only, it opens a file whose directory it may not write too, as
// listing needs: SQLite reads a file in WAL mode only through its -shm
// beside it, which it then cannot create. Where no -wal is there either,
// no process has the file open to write (the last to close it removes
// both), so all of it is in the file itself, which is then read as
// immutable, without the -shm. A writer that starts meanwhile writes to a
// -wal of its own and changes the file only at a checkpoint, 1000 pages
// on or at its close, which a listing of milliseconds does not meet but
// by a rare chance: then it lists what the file held, or fails as damaged.
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
	}
	if err := usable(path, readOnly); err != nil {
		return nil, fmt.Errorf("SQLite file %s: %w", path, err)
	}
	db, err := open(DSN(path, readOnly))
	if err != nil && dirDenied(path, err) {
		if _, walErr := os.Stat(path + "-wal"); !readOnly || !errors.Is(walErr, fs.ErrNotExist) {
			name := filepath.Base(path)
			return nil, fmt.Errorf("SQLite file %s: this user may not create files in its directory %s, where SQLite keeps the file's write-ahead log (%s-wal, %s-shm): %w",
				path, filepath.Dir(path), name, name, err)
		}
		db, err = open(DSN(path, readOnly) + "&immutable=1")
	}
	if err != nil {
		return nil, fmt.Errorf("SQLite file %s: %w", path, dialect.SQLite.Cause(context.Background(), err))
	}
	return db, nil
}

// usable checks what SQLite would not say plainly, that this user may open
// path: it is not a directory, it exists when readOnly, and it may be read,
// or written or created unless readOnly.
func usable(path string, readOnly bool) error {
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return errors.New("is a directory: name a file in it")
	case err != nil && (readOnly || !errors.Is(err, fs.ErrNotExist)):
		return err
	}
	mode, what := os.O_RDONLY, "read"
	if !readOnly {
		mode, what = os.O_RDWR|os.O_CREATE, "write"
	}
	f, err := os.OpenFile(path, mode, 0o644)
	switch {
	case err == nil:
		return f.Close()
	case info == nil:
		return fmt.Errorf("this user may not create it in directory %s: %w", filepath.Dir(path), err)
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		return fmt.Errorf("this user may not %s the file (%v): %w", what, info.Mode(), err)
	}
	return err
}

// dirDenied reports whether err, SQLite's failure to open the file at path,
// is that it may not create the -wal or -shm beside it:
// SQLITE_READONLY_DIRECTORY, or, where the process may write everywhere
// but an immutable directory (root), SQLITE_CANTOPEN with no new file
// allowed in the directory, which it finds out by making one and removing
// it at once.
func dirDenied(path string, err error) bool {
	var c interface{ Code() int }
	if !errors.As(err, &c) {
		return false
	}
	switch {
	case c.Code() == sqliteReadOnlyDirectory:
		return true
	case c.Code()&0xff == sqliteCantOpen:
		f, err := os.CreateTemp(filepath.Dir(path), ".uidgen-probe-*")
		if err != nil {
			return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
		}
		f.Close()
		os.Remove(f.Name())
	}
	return false
}

// SQLite's result codes that dirDenied tells apart: the extended
// SQLITE_READONLY_DIRECTORY, and the primary SQLITE_CANTOPEN, the low
// byte of its extended codes.
const (
	sqliteReadOnlyDirectory = 8 | 6<<8
	sqliteCantOpen          = 14
)

// open opens dsn and its first connection (probe).
func open(dsn string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	// The first statement opens the file and runs the pragmas: a file that
	// is not a database, or a directory that cannot be written, says so
	// here rather than at the first lease.
	if err := probe(context.Background(), db); err != nil {
		db.Close()
		return nil, err
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
