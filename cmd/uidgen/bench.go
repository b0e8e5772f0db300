package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/term"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/cmd/uidgen/internal/human"
	"github.com/seed4d941b13/uidgen/cmd/uidgen/internal/serve"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/baseline"
	"github.com/seed4d941b13/uidgen/internal/load"
	"github.com/seed4d941b13/uidgen/internal/scheme"
	"github.com/seed4d941b13/uidgen/metrics"
)

// benchSampleEvery is how many calls `uidgen bench` makes per timed one:
// reading the clock twice costs more than a cached NextID, so timing every
// call would halve what it measures.
const benchSampleEvery = 32

// contender is one generator `uidgen bench` measures: open builds it from
// the flags' config, a cached.Config, of which the others take what they
// have.
type contender struct {
	name string
	open func(ctx context.Context, cfg cached.Config) (maker, error)
}

// maker is a generator as the commands use it: gen and serve take its
// IDs, bench measures it.
type maker struct {
	next    func() (int64, error)
	nextFor func(key int64) (int64, error)
	parse   func(uid int64) uidgen.ID
	ahead   func() time.Duration // ID time borrowed beyond the clock so far
	ring    func() string        // the ring's statistics for the table; nil without a ring
	// served is the generator as serve hands out its IDs, and metrics its
	// metrics; nil for the atomic and segment contenders, which serve
	// does not run.
	served  serve.Generator
	metrics prometheus.Collector
	close   func() error // releases the generator
}

// contenders are measured in this order.
var contenders = []contender{
	{"cached", func(ctx context.Context, cfg cached.Config) (maker, error) {
		g, err := cached.New(ctx, cfg)
		if err != nil {
			return maker{}, err
		}
		return maker{
			next:    g.NextID,
			nextFor: g.NextIDFor,
			parse:   g.Layout().Parse,
			ahead:   func() time.Duration { return g.Stats().Ahead },
			ring: func() string {
				s := g.Stats()
				return fmt.Sprintf("ring of %s, %s fills, %s takes waited, %s failed",
					human.Group(s.Size), human.Group(s.Fills), human.Group(s.TakesWaited), human.Group(s.TakesFailed))
			},
			served:  servedCached{g, cfg.MaxAhead},
			metrics: metrics.NewCached(g),
			close:   g.Close,
		}, nil
	}},
	// The default generator never borrows ahead of the clock, so it has
	// no MaxAhead to take: past a tick's IDs, takes wait for the next.
	{"default", func(ctx context.Context, cfg cached.Config) (maker, error) {
		g, err := defaultgen.New(ctx, defaultgen.Config{
			Layout: cfg.Layout, After: cfg.After,
			Assigner: cfg.Assigner, Leaser: cfg.Leaser, Clock: cfg.Clock,
		})
		if err != nil {
			return maker{}, err
		}
		return maker{next: g.NextID, nextFor: g.NextIDFor, parse: g.Layout().Parse,
			ahead:  func() time.Duration { return g.Stats().Ahead },
			served: servedDefault{g}, metrics: metrics.NewDefault(g),
			close: g.Close}, nil
	}},
}

// servedCached is a cached generator as serve takes it, with the
// MaxAhead it was built with, which its Stats do not say.
type servedCached struct {
	*cached.Generator
	maxAhead time.Duration
}

func (g servedCached) Stats() serve.Stats {
	s := g.Generator.Stats()
	return serve.Stats{Taken: s.Taken, RingSize: s.Size, RingAvailable: s.Available, Ahead: s.Ahead,
		MaxAhead: g.maxAhead, ClockWait: s.ClockWait, Lease: s.Lease}
}

// servedDefault is a default generator as serve takes it: it has no
// batch take, so NextIDs takes one ID at a time.
type servedDefault struct{ *defaultgen.Generator }

// NextIDs fills dst from the front and stops at the first error.
func (g servedDefault) NextIDs(dst []int64) (int, error) {
	for i := range dst {
		uid, err := g.NextID()
		if err != nil {
			return i, err
		}
		dst[i] = uid
	}
	return len(dst), nil
}

func (g servedDefault) Stats() serve.Stats {
	s := g.Generator.Stats()
	return serve.Stats{Taken: s.Taken, Ahead: s.Ahead, Lease: s.Lease}
}

// atomicContender is the baseline `uidgen bench` runs first, with the same
// goroutines and harness as the generators: a bare atomic counter, the
// cheapest unique number there is. Each generator's ns/ID divided by its
// ns/ID is a ratio that means the same on any machine, where IDs/s do not.
var atomicContender = contender{"atomic", func(context.Context, cached.Config) (maker, error) {
	return maker{next: baseline.Atomic(), close: func() error { return nil }}, nil
}}

// openContender builds the generator called name from cfg, bounding the
// worker ID assignment by assignTimeout.
func openContender(name string, cfg cached.Config) (maker, error) {
	i := slices.IndexFunc(contenders, func(c contender) bool { return c.name == name })
	if i < 0 {
		return maker{}, fmt.Errorf("%w: -generator %q: want cached or default", ErrUsage, name)
	}
	return contenders[i].build(cfg)
}

// build builds c from cfg, bounding the worker ID assignment by
// assignTimeout.
func (c contender) build(cfg cached.Config) (maker, error) {
	ctx, cancel := context.WithTimeout(context.Background(), assignTimeout)
	defer cancel()
	b, err := c.open(ctx, cfg)
	if err != nil {
		return maker{}, usageIf(err)
	}
	return b, nil
}

// segmentContender is the segment generator the flags ask for, on dsn's
// database: `uidgen bench -segment` measures it beside the cached one.
func segmentContender(sf *segmentFlags, dsn string) contender {
	return contender{"segment", func(context.Context, cached.Config) (maker, error) {
		g, closeAll, err := sf.open(dsn)
		if err != nil {
			return maker{}, err
		}
		return maker{
			next:  g.NextID,
			ahead: func() time.Duration { return 0 },
			ring: func() string {
				s := g.Stats()
				return fmt.Sprintf("ring of %s, %s claims of up to %s, %s takes waited, %s failed",
					human.Group(s.Size), human.Group(s.Claims), human.Group(s.ClaimSize), human.Group(s.TakesWaited), human.Group(s.TakesFailed))
			},
			close: closeAll,
		}, nil
	}}
}

// benchRow is what one contender measured.
type benchRow struct {
	name  string
	r     load.Result
	ahead string // human.Ahead of the ID time borrowed beyond the clock, or "-"
	ring  string // the ring's statistics, or "-"
}

// benchSynopsis and benchExample are bench's -h.
const (
	benchSynopsis = "bench [-d DURATION] [-goroutines N] [-worker ID] [-layout NAME | layout flags] [-after ID]\n" +
		"       uidgen bench -segment TAG [-db FILE | -dsn DSN] [-d DURATION] [-goroutines N]"
	benchExample = "uidgen bench -d 3s -goroutines 4\n  uidgen bench -segment bench -dsn 'root@tcp(127.0.0.1:3306)/test'"
)

// benchFlags are bench's flags.
type benchFlags struct {
	fs         *flag.FlagSet
	d          time.Duration
	goroutines int
	maker      makerFlags
	segment    segmentFlags
	stores     []string // the flags of a worker ID's store, which bench refuses
}

func runBench(args []string, stdout, stderr io.Writer, store leaseStore) error {
	var f benchFlags
	f.register(newFlagSet("bench", benchSynopsis, benchExample, stderr), store, stderr)
	if err := parseFlags(f.fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	list, cfg, err := f.contenders()
	if err != nil {
		return err
	}
	// A static worker ID the layout cannot hold fails every generator:
	// say so before the baseline, not after it has run for -d.
	if err := scheme.CheckWorkerID(cfg.Layout.Bits(), f.maker.worker.id); err != nil {
		return usageIf(fmt.Errorf("-worker: %w", err))
	}
	rows, err := f.measure(append([]contender{atomicContender}, list...), cfg, stderr)
	if err != nil {
		return err
	}
	if err := printBench(stdout, rows, f.goroutines, cfg); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "worker ID %d is static and remembered nowhere: bench hands its IDs to no one. gen and serve lease theirs from -db.\n", f.maker.worker.id)
	return err
}

func (f *benchFlags) register(fs *flag.FlagSet, store leaseStore, stderr io.Writer) {
	f.fs = fs
	fs.DurationVar(&f.d, "d", 3*time.Second, "how long to run each generator")
	fs.IntVar(&f.goroutines, "goroutines", runtime.GOMAXPROCS(0), "goroutines calling NextID at once")
	f.maker.register(fs, store)
	f.segment.register(fs)
	f.stores = f.maker.worker.storeFlagNames()
	benchHelp(fs, f.stores, stderr)
}

// check refuses arguments, bad flags, and the flags bench has no use
// for: a store's, which a static worker ID does without, and with
// -segment any but its own.
func (f *benchFlags) check() error {
	switch {
	case f.fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, f.fs.Arg(0))
	case f.d <= 0:
		return fmt.Errorf("%w: -d %v: must be more than 0", ErrUsage, f.d)
	case f.goroutines < 1:
		return fmt.Errorf("%w: -goroutines %d: must be 1 or more", ErrUsage, f.goroutines)
	}
	if err := f.segment.checkTag(f.fs); err != nil {
		return err
	}
	if f.segment.tag != "" {
		// The segment generator beside the cached one, whose worker ID is
		// static: -dsn is the tag table's database.
		return segmentConflicts(f.fs, "segment", "segment-table", "start", "step", "claim-every", "max-step", "dsn", "db", "d", "goroutines", "worker")
	}
	if err := checkRules(f.fs, segmentRules...); err != nil {
		return err
	}
	if name := setFlag(f.fs, f.stores...); name != "" {
		segment := ""
		if name == "db" || name == "dsn" {
			segment = "; -db and -dsn go with -segment, naming its tag table"
		}
		return fmt.Errorf("%w: -%s: bench takes a static worker ID (-worker, 0 by default) and keeps no store: "+
			"its IDs go to no one, so it leases and reserves nothing%s", ErrUsage, name, segment)
	}
	return nil
}

// contenders returns the generators bench measures after the baseline,
// and the config they are built from: the cached and default ones, or
// with -segment the cached one and the segment one of -segment's tag.
func (f *benchFlags) contenders() ([]contender, cached.Config, error) {
	list := contenders
	if f.segment.tag != "" {
		dsn, err := f.maker.worker.tagDSN()
		if err != nil {
			return nil, cached.Config{}, err
		}
		list = []contender{contenders[0], segmentContender(&f.segment, dsn)}
	}
	cfg, err := f.maker.static()
	return list, cfg, err
}

// measure runs each of list in turn, and returns a row for each.
func (f *benchFlags) measure(list []contender, cfg cached.Config, stderr io.Writer) ([]benchRow, error) {
	rows := make([]benchRow, 0, len(list))
	for _, c := range list {
		row, err := benchOne(c, cfg, f.goroutines, f.d, stderr)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// benchHelp says on fs's flags what they mean to bench, and makes its -h
// list only those bench takes: the flags of a worker ID's store (stores)
// stay defined, so that bench refuses them saying why rather than calling
// them unknown, but are not offered, except -db and -dsn, which name the
// tag table of -segment.
func benchHelp(fs *flag.FlagSet, stores []string, stderr io.Writer) {
	fs.Lookup("worker").Usage = "the static worker ID in every ID: bench hands its IDs to no one, so it leases nothing and remembers the ID nowhere"
	fs.Lookup("db").Usage = "with -segment: the SQLite file of the tag table (default $" + dbEnv + ", else " + defaultDBHelp + ")"
	fs.Lookup("dsn").Usage = "with -segment: the database of the tag table, in place of -db (default $" + dsnEnv + "): " + dsnHelp
	shown := newFlagSet("bench", benchSynopsis, benchExample, stderr)
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "db" || f.Name == "dsn" || !slices.Contains(stores, f.Name) {
			shown.Var(f.Value, f.Name, f.Usage)
		}
	})
	fs.Usage = shown.Usage
}

// benchOne builds c and hammers it for d, with progress on stderr.
func benchOne(c contender, cfg cached.Config, goroutines int, d time.Duration, stderr io.Writer) (benchRow, error) {
	b, err := c.build(cfg)
	if err != nil {
		return benchRow{}, err
	}
	defer b.close()
	p := progressLine{w: stderr, tty: isTerminal(stderr), name: c.name, d: d}
	r := load.Run(load.Config{
		Goroutines:    goroutines,
		Duration:      d,
		SampleEvery:   benchSampleEvery,
		Progress:      p.show,
		ProgressEvery: p.every(),
	}, b.next)
	p.end(r)
	if r.Err != nil {
		return benchRow{}, fmt.Errorf("%s: %w", c.name, r.Err)
	}
	row := benchRow{name: c.name, r: r, ahead: "-", ring: "-"}
	if b.ahead != nil {
		row.ahead = human.Ahead(b.ahead())
	}
	if b.ring != nil {
		row.ring = b.ring()
	}
	return row, nil
}

// progressLine is bench's progress on stderr (w) while it runs the
// contender called name for d: a line redrawn five times a second on a
// terminal (tty), and elsewhere (a pipe, a log file) a line a second with
// no carriage return, so that a log reads line by line.
type progressLine struct {
	w    io.Writer
	tty  bool
	name string
	d    time.Duration
}

// every is how often show is called.
func (p progressLine) every() time.Duration {
	if p.tty {
		return 200 * time.Millisecond
	}
	return time.Second
}

// show writes the line for ids made in elapsed.
func (p progressLine) show(ids int64, elapsed time.Duration) {
	line := fmt.Sprintf("%-8s %5.1fs of %v  %15s IDs  %12s IDs/s", p.name,
		elapsed.Seconds(), p.d, human.Group(ids), human.Group(int64(float64(ids)/elapsed.Seconds())))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s ", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// end writes the line of r, the run's result, and on a terminal ends it.
func (p progressLine) end(r load.Result) {
	p.show(r.IDs, r.Elapsed)
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// printBench writes the table a person reads, aligned, and what it means.
// rows[0] is the atomic baseline.
func printBench(w io.Writer, rows []benchRow, goroutines int, cfg cached.Config) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "generator\t×atomic\tIDs/s\tns/ID\tp50\tp99\tmax\tahead\tring")
	for _, r := range rows {
		h := r.r.Latency
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\t%v\t%v\t%s\t%s\n", r.name, ratio(r.r.NsPerID()/rows[0].r.NsPerID()),
			human.Group(int64(r.r.PerSecond())), nsPerID(r.r.NsPerID()),
			load.Round(load.Quantile(h, 0.5)), load.Round(load.Quantile(h, 0.99)), load.Round(load.Max(h)), r.ahead, r.ring)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	plural := "s"
	if goroutines == 1 {
		plural = ""
	}
	fmt.Fprintf(w, "\n%d goroutine%s; ns/ID is wall time per ID across them all; latencies from one call in %d.\n",
		goroutines, plural, benchSampleEvery)
	fmt.Fprintln(w, "×atomic is ns/ID over the bare atomic counter's in this run: the ratio means the same on any machine, IDs/s do not.")
	if slices.ContainsFunc(rows, func(r benchRow) bool { return r.name == "default" }) {
		perTick, tick := cfg.Layout.Bits().MaxSequence()+1, cfg.Layout.Tick() // the layout flags always set Layout
		fmt.Fprintf(w, "default makes at most %s IDs a second (its sequence bits); past that, callers sleep to the next tick.\n",
			human.Group(perTick*int64(time.Second/tick)))
	}
	_, err := fmt.Fprintln(w, "ahead is how much ID time a generator has borrowed beyond the clock.")
	return err
}

// isTerminal reports whether w is a terminal, where a progress line may
// redraw itself.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// ratio formats a ratio to the baseline: two decimals where they matter.
func ratio(x float64) string {
	if x < 100 {
		return fmt.Sprintf("%.2fx", x)
	}
	return human.Group(int64(math.Round(x))) + "x"
}

// nsPerID formats nanoseconds per ID: one decimal where it matters.
func nsPerID(ns float64) string {
	if ns < 100 {
		return fmt.Sprintf("%.1f", ns)
	}
	return human.Group(int64(math.Round(ns)))
}
