package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/seed4d941b13/uidgen/worker"
)

func runSchema(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("schema", "schema [-table NAME]",
		"uidgen schema | mysql -u root mydb", stderr)
	table := fs.String("table", worker.DefaultTable, "name of the worker table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	ddl, err := worker.Schema(*table)
	if err != nil {
		return callerError{err}
	}
	lease, err := worker.LeaseSchema(*table)
	if err != nil {
		return fmt.Errorf("%w: -table: %v", errUsage, err)
	}
	// Baidu's file ends without a newline; a terminal wants one.
	_, err = fmt.Fprintf(stdout, "%s\n\n-- The lease columns, for -lease (worker.Leased); Baidu's Java ignores them.\n%s",
		strings.TrimSuffix(ddl, "\n"), lease)
	return err
}
