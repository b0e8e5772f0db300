package sqlitedb

import (
	"path/filepath"
	"sync"
	"testing"

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
