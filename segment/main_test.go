package segment_test

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
)

// TestMain skips Example, which talks to the MySQL server at 127.0.0.1:3306,
// where the tests have no MySQL server: as dbtest skips the database tests
// outside CI, and fails them in CI, where .ci/run must provide the server.
func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv(dbtest.MySQLEnv) == "" && os.Getenv("CI") == "" {
		fmt.Fprintf(os.Stderr, "skipping Example: it needs the MySQL server of %s (or bash .ci/run)\n", dbtest.MySQLEnv)
		if err := flag.Set("test.skip", "^Example$"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}
