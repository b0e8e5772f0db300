package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// printFleet prints a lease store's fleet under prefix as `uidgen workers
// -dsn` prints the table: a lease's time left is the store's; a
// reservation is an instant in UTC, and how far it runs ahead of this
// machine's clock.
func printFleet(w io.Writer, rows []uidgen.LeaseRow, prefix string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tHOST\tPID\tSINCE (UTC)\tLEASE LEFT\tRESERVED (UTC)\tAHEAD")
	held := 0
	for _, r := range rows {
		state, host, pid, since, left, ahead := "free", "-", "-", "-", "-", "-"
		if r.Held {
			held++
			state, host, pid = "held", r.Host, fmt.Sprint(r.PID)
			since, left = r.Since.UTC().Format(time.DateTime), r.LeaseLeft.String()
		}
		if r.ReservedAhead > 0 {
			ahead = r.ReservedAhead.String()
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, state, host, pid, since, left,
			time.Unix(r.Reserved, 0).UTC().Format(time.DateTime), ahead)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d worker IDs under %q: %d held, %d free\n", len(rows), prefix, held, len(rows)-held)
	return err
}
