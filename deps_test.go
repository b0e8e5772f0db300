package uidgen_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryLinksNoDriver: a program that imports the library's packages
// links no database driver, no metrics client, none of the CLI's terminal
// code and no testing code: it imports the driver it opens its *sql.DB
// with, as database/sql has it. The CLI and the collectors share the
// library's module, so that `go install` builds the CLI from a tag with no
// replace directive; this test keeps what they need out of the library's
// packages.
func TestLibraryLinksNoDriver(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("needs the go command: %v", err)
	}
	for _, pkg := range []string{"./cached", "./defaultgen", "./worker", "./segment"} {
		out, err := exec.Command(goTool, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, banned := range []string{"github.com/go-sql-driver/", "github.com/jackc/", "github.com/prometheus/", "golang.org/x/term", "github.com/HdrHistogram/"} {
				if strings.HasPrefix(dep, banned) || dep == "testing" {
					t.Errorf("%s links %s", pkg, dep)
				}
			}
		}
	}
}
