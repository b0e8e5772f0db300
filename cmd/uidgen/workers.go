package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/seed4d941b13/uidgen/worker"
)

func runWorkers(args []string, stdout, stderr io.Writer, store leaseStore) error {
	fs := newFlagSet("workers", "workers [-db FILE | -dsn DSN] [-table NAME] | -etcd ENDPOINTS [-etcd-prefix P] | -redis URL [-redis-prefix P]",
		"uidgen workers    # the embedded file's\n  uidgen workers -dsn 'root@tcp(127.0.0.1:3306)/test'", stderr)
	table := fs.String("table", worker.DefaultTable, "worker table")
	dsn := dsnFlag(fs, "the worker table's database")
	var db string
	dbFlag(fs, &db, dbRead)
	var sf storeFlags
	sf.register(fs, store)
	if err := parseListerFlags(fs, args); err != nil {
		return err
	}
	if err := sf.fromEnv(dsn, "dsn"); err != nil {
		return err
	}
	if sf.Chosen() {
		if err := sf.conflict("workers lists the store's worker IDs", "dsn", "table", "db"); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), assignTimeout)
		defer cancel()
		return store.List(ctx, stdout)
	}
	if err := dbConflict(fs, *dsn); err != nil {
		return err
	}
	return listTable(*dsn, db, func(ctx context.Context, db *sql.DB) error {
		rows, err := worker.List(ctx, worker.Config{DB: db, Table: *table})
		if err != nil {
			return usageIf(err)
		}
		return printWorkers(stdout, *table, rows)
	})
}

// printWorkers writes rows as aligned columns and a summary line. A lease's
// time left is the database's; a reservation is an instant in UTC, and how
// far it runs ahead of the database's clock: for a held ID, how long its
// holder goes on without the database at one second a second; for a free
// one, how long the ID stays hot.
func printWorkers(w io.Writer, table string, rows []worker.Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tTYPE\tHOST\tPORT\tSTATE\tLEASE LEFT\tRESERVED (UTC)\tAHEAD")
	var leased, held int
	for _, r := range rows {
		kind, state, left, reserved, ahead := "disposable", "spent", "-", "-", "-"
		if !r.Disposable {
			leased++
			kind, state = "leased", "free"
			if r.Held {
				held++
				state, left = "held", r.LeaseLeft.Round(100*time.Millisecond).String()
			}
			if r.Reserved > 0 {
				reserved = time.Unix(r.Reserved, 0).UTC().Format(time.DateTime)
			}
			if r.ReservedAhead > 0 {
				ahead = r.ReservedAhead.String()
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%v\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, kind, r.Type, r.Host, r.Port, state, left, reserved, ahead)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d rows in %s: %d leased (%d held, %d free), %d disposable\n",
		len(rows), table, leased, held, leased-held, len(rows)-leased)
	return err
}
