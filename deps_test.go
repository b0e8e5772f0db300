package uidgen_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLibraryLinksNoDriver: a program that imports the library's packages
// links no database driver, no etcd, gRPC or Redis client, no metrics client, none
// of the CLI's terminal code and no testing code: it imports the driver it
// opens its *sql.DB with, as database/sql has it, and the etcd and Redis
// leasers only where it leases from them. The CLI, the collectors and the
// store leasers share the library's module, so that `go install` builds the one command
// from a tag with no replace directive; this test keeps what they need out
// of the generators' packages.
func TestLibraryLinksNoDriver(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("needs the go command: %v", err)
	}
	library := []string{"github.com/go-sql-driver/", "github.com/jackc/", "github.com/prometheus/",
		"golang.org/x/term", "github.com/HdrHistogram/", "testing",
		"go.etcd.io/", "google.golang.org/", "go.uber.org/", "github.com/redis/",
		"github.com/seed4d941b13/uidgen/etcdworker", "github.com/seed4d941b13/uidgen/redisworker"}
	for _, tt := range []struct {
		pkg    string
		banned []string // import path prefixes
	}{
		{"./cached", library},
		{"./defaultgen", library},
		{"./worker", library},
		{"./segment", library},
	} {
		out, err := exec.Command(goTool, "list", "-deps", tt.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", tt.pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, banned := range tt.banned {
				if dep == banned || strings.HasSuffix(banned, "/") && strings.HasPrefix(dep, banned) ||
					strings.HasPrefix(dep, banned+"/") {
					t.Errorf("%s links %s", tt.pkg, dep)
				}
			}
		}
	}
}
