// Command claims measures the trade-off a segment generator's largest
// claim (segment.Config.MaxStep) makes: for each server, rate and MaxStep
// it takes numbers at that pace for -d from a tag of its own and reports
// the claim statements a second it sent and the most numbers it held at
// once, claimed and not yet handed out: what a crash at that instant would
// lose. Flat out it takes as fast as one goroutine can.
//
//	go run ./cmd/claims -d 10s
//
// The servers are $UIDGEN_MYSQL_DSN and $UIDGEN_POSTGRES_DSN, the local
// MariaDB and PostgreSQL by default.
package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/seed4d941b13/uidgen/segment"
)

func main() {
	d := flag.Duration("d", 10*time.Second, "how long to run each server, rate and MaxStep")
	steps := flag.String("max-steps", "250000,1000000,2000000,4294967296", "the MaxSteps to compare, comma-separated")
	flag.Parse()
	var maxSteps []int64
	for s := range strings.SplitSeq(*steps, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "claims: -max-steps:", err)
			os.Exit(2)
		}
		maxSteps = append(maxSteps, n)
	}
	servers := []struct{ driver, dsn string }{
		{"mysql", cmp.Or(os.Getenv("UIDGEN_MYSQL_DSN"), "root@tcp(127.0.0.1:3306)/test")},
		{"pgx", cmp.Or(os.Getenv("UIDGEN_POSTGRES_DSN"), "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")},
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "server\trate\tMaxStep\tnumbers/s\tclaims/s\tmost held (lost at a crash)\t")
	for _, srv := range servers {
		db, err := sql.Open(srv.driver, srv.dsn)
		if err != nil {
			fmt.Fprintln(os.Stderr, "claims:", err)
			os.Exit(1)
		}
		for _, rate := range []int{1_000, 100_000, 0} {
			for _, maxStep := range maxSteps {
				r, err := measure(db, rate, maxStep, *d)
				if err != nil {
					fmt.Fprintf(os.Stderr, "claims: %s: %v\n", srv.driver, err)
					os.Exit(1)
				}
				name := "flat out"
				if rate > 0 {
					name = strconv.Itoa(rate) + "/s"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%.2f\t%d\t\n", srv.driver, name, maxStep, r.rate, r.claims, r.held)
				tw.Flush()
			}
		}
		db.Close()
	}
}

// result is what one run measured.
type result struct {
	rate   float64 // numbers handed out a second
	claims float64 // claim statements a second, the first claim at New included
	held   int64   // the most numbers claimed and not yet handed out, sampled after each batch
}

// measure runs a segment generator with maxStep on a table of its own in
// db, taking rate numbers a second (0: flat out) for d.
func measure(db *sql.DB, rate int, maxStep int64, d time.Duration) (result, error) {
	ctx := context.Background()
	table := "leaf_alloc_claims_" + strings.ToLower(rand.Text()[:10])
	if err := segment.EnsureSchema(ctx, segment.Config{DB: db, Table: table}); err != nil {
		return result{}, err
	}
	defer db.Exec("DROP TABLE " + table)
	g, err := segment.New(ctx, segment.Config{DB: db, Table: table, Tag: "claims", MaxStep: maxStep})
	if err != nil {
		return result{}, err
	}
	defer g.Close()
	batch := make([]int64, 256)
	if rate > 0 {
		batch = batch[:max(rate/1000, 1)] // one batch a millisecond
	}
	var r result
	start := time.Now()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for time.Since(start) < d {
		if rate > 0 {
			<-tick.C
			if due := int(time.Since(start).Seconds() * float64(rate)); int(g.Stats().Taken) >= due {
				continue
			}
		}
		if _, err := g.NextIDs(batch); err != nil {
			return result{}, err
		}
		st := g.Stats()
		// Held: the numbers claimed and not yet handed out, in the range
		// in hand, the spare range and the ring.
		r.held = max(r.held, st.Pending+st.Available)
	}
	elapsed := time.Since(start).Seconds()
	st := g.Stats()
	r.rate = float64(st.Taken) / elapsed
	r.claims = float64(st.Claims) / elapsed
	return r, nil
}
