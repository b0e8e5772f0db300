package dbtest_test

import (
	"testing"

	"github.com/seed4d941b13/uidgen/cached"
)

// newCached returns a cached generator for cfg, closed when t ends.
func newCached(t *testing.T, cfg cached.Config) *cached.Generator {
	t.Helper()
	g, err := cached.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}
