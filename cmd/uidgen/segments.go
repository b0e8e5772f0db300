package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/defaults"
	"github.com/seed4d941b13/uidgen/ringbuffer"
	"github.com/seed4d941b13/uidgen/segment"
)

// segmentFlags are the flags of segment mode: dense numbers of a tag from
// the leaf_alloc table, instead of IDs.
type segmentFlags struct {
	tag    string
	table  string
	start  int64
	step   int64
	claims claimFlags
}

func (s *segmentFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.tag, "segment", "", "segment mode: dense numbers of this tag from the leaf_alloc table of the -db file, or of -dsn's database, "+
		"creating the table and the tag when missing")
	fs.StringVar(&s.table, "segment-table", segment.DefaultTable, "with -segment: the tag table")
	fs.Int64Var(&s.start, "start", 0, "with -segment: the first number of a tag that does not exist yet, or a higher one to move it up to (0: 1)")
	fs.Int64Var(&s.step, "step", 0, fmt.Sprintf("with -segment: the step of a tag that does not exist yet (0: %d)", defaults.SegmentStep))
	s.claims.register(fs, "with -segment")
}

// checkTag refuses a -segment given an empty tag, which would otherwise
// read as no -segment at all and print IDs in place of numbers.
func (s *segmentFlags) checkTag(fs *flag.FlagSet) error {
	if s.tag == "" && setFlag(fs, "segment") != "" {
		return fmt.Errorf("%w: -segment \"\": want a tag, as -segment order", ErrUsage)
	}
	return nil
}

// claimFlags size a segment generator's claims: -claim-every and
// -max-step, on gen -segment, bench -segment and serve.
type claimFlags struct {
	every   time.Duration
	maxStep int64
}

// claimFlagNames are the flags claimFlags registers.
var claimFlagNames = []string{"claim-every", "max-step"}

func (c *claimFlags) register(fs *flag.FlagSet, with string) {
	fs.DurationVar(&c.every, "claim-every", 0, fmt.Sprintf(
		"%s: how long a claim of numbers is sized to last at the rate they go (0: %v)", with, defaults.SegmentClaimEvery))
	fs.Int64Var(&c.maxStep, "max-step", 0, fmt.Sprintf(
		"%s: the largest claim; a process killed flat out loses at most about 1.5 times it (0: %d)", with, defaults.SegmentMaxStep))
}

// apply sets cfg's claim sizes from the flags; zero keeps the defaults.
func (c claimFlags) apply(cfg *segment.Config) { cfg.ClaimEvery, cfg.MaxStep = c.every, c.maxStep }

// segmentWait is how long gen and bench wait for numbers on an empty ring
// before they fail: the time a claim statement may take. A service's
// request is better failed after the ring's default wait, a second; a command that
// prints or measures numbers rides out a database that answers slowly, as
// one loaded with hundreds of claims a second under -claim-every 1ms does.
const segmentWait = 10 * time.Second

// open opens the segment generator the flags ask for on dsn's database,
// creating the table when it is missing. It returns the generator and a
// func that closes it and the database.
func (s *segmentFlags) open(dsn string) (*segment.Generator, func() error, error) {
	if dsn == "" {
		return nil, nil, fmt.Errorf("%w: -segment needs -dsn (or $%s): the tags live in a table", ErrUsage, dsnEnv)
	}
	db, err := openDB(dsn)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), assignTimeout)
	defer cancel()
	cfg := segment.Config{DB: db, Tag: s.tag, Table: s.table, Start: s.start, Step: s.step, Description: "made by uidgen",
		RejectedTake: ringbuffer.Wait(segmentWait)}
	s.claims.apply(&cfg)
	g, err := segment.New(ctx, cfg)
	if errors.Is(err, uidgen.ErrNoTable) {
		if err = segment.EnsureSchema(ctx, cfg); err == nil {
			g, err = segment.New(ctx, cfg)
		}
	}
	if err != nil {
		db.Close()
		return nil, nil, segmentUsage(err)
	}
	return g, func() error { return errors.Join(g.Close(), db.Close()) }, nil
}

// segmentUsage marks the errors of a bad segment flag as usage errors.
func segmentUsage(err error) error {
	for _, bad := range []error{segment.ErrBadTag, uidgen.ErrConfig} {
		if errors.Is(err, bad) {
			return callerError{err}
		}
	}
	return err
}

// genSegment prints n numbers of the flags' tag, one per line.
func genSegment(s *segmentFlags, dsn string, n int, stdout io.Writer) (err error) {
	g, closeAll, err := s.open(dsn)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeAll()) }()
	out := bufio.NewWriter(stdout)
	buf := make([]int64, min(n, 4096))
	for left := n; left > 0; left -= len(buf) {
		buf = buf[:min(left, len(buf))]
		if _, err := g.NextIDs(buf); err != nil {
			out.Flush()
			return err
		}
		for _, id := range buf {
			out.WriteString(strconv.FormatInt(id, 10))
			out.WriteByte('\n')
		}
	}
	return out.Flush()
}

func runSegments(args []string, stdout, stderr io.Writer, _ leaseStore) error {
	fs := newFlagSet("segments", "segments [-db FILE | -dsn DSN] [-segment-table NAME]",
		"uidgen segments    # the embedded file's\n  uidgen segments -dsn 'postgres://postgres@127.0.0.1:5432/test'", stderr)
	table := fs.String("segment-table", segment.DefaultTable, "the tag table")
	return runLister(fs, args, "the tag table's database", func(ctx context.Context, db *sql.DB) error {
		rows, err := segment.List(ctx, segment.Config{DB: db, Table: *table})
		if err != nil {
			return segmentUsage(err)
		}
		return printSegments(stdout, *table, rows)
	})
}

// printSegments writes the tags as aligned columns and a summary line.
// GIVEN BACK counts the numbers below NEXT that clean exits gave back, which
// later claims hand out first.
func printSegments(w io.Writer, table string, rows []segment.Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TAG\tNEXT\tSTEP\tGIVEN BACK\tLAST CLAIM (UTC)\tDESCRIPTION")
	for _, r := range rows {
		back := "-"
		if r.ReturnedRuns > 0 {
			back = fmt.Sprintf("%d in %d runs", r.Returned, r.ReturnedRuns)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\n", r.Tag, r.Next, r.Step, back, r.LastClaim.Format(time.DateTime), r.Description)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d tags in %s; NEXT is the first number of the next range claimed\n", len(rows), table)
	return err
}

// setFlag returns the first of names that is set on fs, or "".
func setFlag(fs *flag.FlagSet, names ...string) string {
	var set string
	fs.Visit(func(f *flag.Flag) {
		if set == "" && slices.Contains(names, f.Name) {
			set = f.Name
		}
	})
	return set
}

// segmentConflicts returns a usage error naming the first flag of fs set
// that segment mode has no use for: any but allowed.
func segmentConflicts(fs *flag.FlagSet, allowed ...string) error {
	var bad string
	fs.Visit(func(f *flag.Flag) {
		if bad == "" && !slices.Contains(allowed, f.Name) {
			bad = f.Name
		}
	})
	if bad != "" {
		return fmt.Errorf("%w: -%s does not go with -segment, which hands out dense numbers from the tag table", ErrUsage, bad)
	}
	return nil
}
