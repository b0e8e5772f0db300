package serve

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/seed4d941b13/uidgen/internal/sqlitedb"
	"github.com/seed4d941b13/uidgen/segment"
)

// TestTagMemory holds DefaultMaxTags's doc and serve's -max-tags help to
// what a tag costs: the heap a tag's generator keeps, its ring of the
// default size included, is a few KiB, for the ring keeps ranges, not
// numbers (a ring of numbers would be 512 KiB).
func TestTagMemory(t *testing.T) {
	const tags, most = 32, 16 << 10
	db, err := sqlitedb.Open(filepath.Join(t.TempDir(), "tags.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := NewTags(TagsConfig{Segment: segment.Config{DB: db, Table: segment.DefaultTable}, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range tags {
		g, err := s.generator(t.Context(), fmt.Sprint("tag", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.NextID(); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	each := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / tags
	t.Logf("a tag keeps %d bytes of heap", each)
	if each > most {
		t.Errorf("a tag keeps %d bytes of heap, want at most %d: DefaultMaxTags's doc and -max-tags's help say a few KiB", each, most)
	}
}
