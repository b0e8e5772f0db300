package main

import (
	"fmt"
	"io"

	"github.com/seed4d941b13/uidgen/segment"
	"github.com/seed4d941b13/uidgen/worker"
)

func runSchema(args []string, stdout, stderr io.Writer, _ leaseStore) error {
	fs := newFlagSet("schema", "schema [-dialect mysql|postgres|sqlite] [-table NAME | -segment [-segment-table NAME]]",
		"uidgen schema | mysql -u root mydb\n  uidgen schema -dialect postgres | psql mydb\n  uidgen schema -segment", stderr)
	dialect := fs.String("dialect", "mysql", "SQL dialect: mysql (also MariaDB), postgres or sqlite")
	table := fs.String("table", worker.DefaultTable, "name of the worker table")
	seg := fs.Bool("segment", false, "print the tag table of segment mode (Leaf's leaf_alloc) instead")
	segTable := fs.String("segment-table", segment.DefaultTable, "with -segment: name of the tag table")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	if *seg {
		if name := setFlag(fs, "table"); name != "" {
			return fmt.Errorf("%w: -table names the worker table; -segment-table names the tag table", ErrUsage)
		}
		ddl, err := segment.Schema(*dialect, *segTable)
		if err != nil {
			return callerError{err}
		}
		_, err = io.WriteString(stdout, ddl)
		return err
	}
	if err := checkRules(fs, segmentRules...); err != nil {
		return err
	}
	ddl, err := worker.Schema(*dialect, *table)
	if err != nil {
		return callerError{err}
	}
	_, err = io.WriteString(stdout, ddl)
	return err
}
