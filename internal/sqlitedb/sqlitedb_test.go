package sqlitedb

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/seed4d941b13/uidgen/internal/permtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// TestOpenAtOnce: processes that open a new file at the same moment all
// open it, and find it in WAL mode. SQLite answers all but one of them
// SQLITE_BUSY at once, without its busy handler, while the one makes the
// file WAL; without Open's retry this fails within a few rounds.
func TestOpenAtOnce(t *testing.T) {
	const openers = 8
	rounds := sizetest.Pick(200, 50)
	for round := range rounds {
		path := filepath.Join(t.TempDir(), "uidgen.db")
		var wg sync.WaitGroup
		modes := make([]string, openers)
		errs := make([]error, openers)
		for i := range openers {
			// One handle each: their connections lock the file against
			// each other as those of separate processes do.
			wg.Go(func() {
				db, err := Open(path, false)
				if err != nil {
					errs[i] = err
					return
				}
				defer db.Close()
				errs[i] = db.QueryRow("PRAGMA journal_mode").Scan(&modes[i])
			})
		}
		wg.Wait()
		for i := range openers {
			if errs[i] != nil {
				t.Fatalf("round %d of %d, opener %d: %v", round+1, rounds, i, errs[i])
			}
			if modes[i] != "wal" {
				t.Fatalf("round %d of %d, opener %d: journal mode %q, want wal", round+1, rounds, i, modes[i])
			}
		}
	}
}

// TestOpenDenied: a file this user may not write still lists, read-only,
// whether the file or its directory is unwritable, and opening it to
// write, or reading one it may not read, fails naming the file and the
// permission missing, not a server. Without the check before SQLite's
// open, SQLite says "attempt to write a readonly database" at the first
// write, naming no file, and "unable to open database file" here.
func TestOpenDenied(t *testing.T) {
	for _, tt := range []struct {
		name      string
		deny      func(t *testing.T, path string)
		readOnly  bool
		says      string // "" where Open succeeds
		dirInSays bool
	}{
		{"directory read-only, listing", func(t *testing.T, path string) { permtest.ReadOnly(t, filepath.Dir(path)) }, true, "", false},
		{"directory read-only, writing", func(t *testing.T, path string) { permtest.ReadOnly(t, filepath.Dir(path)) }, false,
			"this user may not create files in its directory", true},
		{"file read-only, listing", func(t *testing.T, path string) { permtest.ReadOnly(t, path) }, true, "", false},
		{"file read-only, writing", func(t *testing.T, path string) { permtest.ReadOnly(t, path) }, false, "this user may not write the file", false},
		{"file unreadable", func(t *testing.T, path string) { permtest.Unreadable(t, path) }, true, "this user may not read the file", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "uidgen.db")
			db, err := Open(path, false)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("CREATE TABLE t (id INTEGER); INSERT INTO t VALUES (7)"); err != nil {
				t.Fatal(err)
			}
			db.Close()
			tt.deny(t, path)
			db, err = Open(path, tt.readOnly)
			if tt.says == "" {
				if err != nil {
					t.Fatalf("Open(%s, %v): %v", path, tt.readOnly, err)
				}
				defer db.Close()
				var id int
				if err := db.QueryRow("SELECT id FROM t").Scan(&id); err != nil || id != 7 {
					t.Fatalf("read %d, %v; want 7", id, err)
				}
				return
			}
			if err == nil {
				db.Close()
				t.Fatalf("Open(%s, %v) succeeded, want %q", path, tt.readOnly, tt.says)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "SQLite file "+path+": "+tt.says) || tt.dirInSays && !strings.Contains(msg, filepath.Dir(path)+", where") || strings.Contains(msg, "server") {
				t.Errorf("Open(%s, %v): %q, want it to name the file and say %q", path, tt.readOnly, msg, tt.says)
			}
		})
	}
}

// TestOpenNotAFile: a directory given as the file, and a file of another
// kind, are named and said to be what they are.
func TestOpenNotAFile(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, says string }{
		{dir, "is a directory: name a file in it"},
		{notDB, "not a SQLite database"},
	} {
		for _, readOnly := range []bool{false, true} {
			db, err := Open(tt.path, readOnly)
			if err == nil {
				db.Close()
			}
			if err == nil || !strings.HasPrefix(err.Error(), "SQLite file "+tt.path+": "+tt.says) {
				t.Errorf("Open(%s, %v): %v, want it to say %q", tt.path, readOnly, err, tt.says)
			}
		}
	}
}
