package uidgen_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGeneratorsLinkNoDriverNorPrometheus: a program that imports cached or
// defaultgen compiles no database driver it did not import, and no
// Prometheus client (that is module metrics').
func TestGeneratorsLinkNoDriverNorPrometheus(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/seed4d941b13/uidgen/cached", "github.com/seed4d941b13/uidgen/defaultgen").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"prometheus", "database/sql", "go-sql-driver", "jackc/pgx", "lib/pq"} {
			if strings.Contains(pkg, banned) {
				t.Errorf("cached or defaultgen links %s", pkg)
			}
		}
	}
}
