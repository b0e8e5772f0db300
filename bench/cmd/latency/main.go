// Command latency records how long each NextID call takes while many
// goroutines call it back to back, for the cached generator and for
// defaultgen, and prints p50, p99, p99.9 and max with the histogram they
// come from. The cached generator's padder refills its ring throughout;
// a refill that stalled callers would show as a bump in the histogram's
// tail. It reports, errors included; it asserts nothing about time.
//
//	go run ./cmd/latency -d 3s -goroutines 2,64
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/baseline"
	"github.com/seed4d941b13/uidgen/internal/load"
)

// contender is one implementation under load: open builds a fresh one and
// returns its NextID, a line of its own statistics to print after the run
// (or nil), and a func that releases it.
type contender struct {
	name      string
	histogram bool // print its histogram, not just its quantiles
	open      func() (next func() (int64, error), stats func() string, close func(), err error)
}

var contenders = []contender{
	{name: "atomic", open: func() (func() (int64, error), func() string, func(), error) {
		// The baseline: what timing a call costs when the call costs nothing.
		return baseline.Atomic(), nil, func() {}, nil
	}},
	{name: "cached", histogram: true, open: func() (func() (int64, error), func() string, func(), error) {
		g, err := cached.New(context.Background(), cached.Config{Assigner: uidgen.Static(1)})
		if err != nil {
			return nil, nil, nil, err
		}
		stats := func() string {
			s := g.Stats()
			return fmt.Sprintf("ring %d slots, %d pad runs, %d takes waited, %d failed, %d s ahead of the clock",
				s.Size, s.Fills, s.TakesWaited, s.TakesFailed, int64(s.Ahead/time.Second))
		}
		return g.NextID, stats, func() { g.Close() }, nil
	}},
	{name: "defaultgen", histogram: true, open: func() (func() (int64, error), func() string, func(), error) {
		g, err := defaultgen.New(context.Background(), defaultgen.Config{Assigner: uidgen.Static(1)})
		if err != nil {
			return nil, nil, nil, err
		}
		return g.NextID, nil, func() {}, nil
	}},
}

func main() {
	d := flag.Duration("d", 3*time.Second, "how long to hammer each implementation at each goroutine count")
	levels := flag.String("goroutines", "2,64", "comma-separated goroutine counts")
	flag.Parse()
	var gs []int
	for _, f := range strings.Split(*levels, ",") {
		g, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || g < 1 {
			fmt.Fprintf(os.Stderr, "latency: -goroutines %q: want counts of 1 or more\n", *levels)
			os.Exit(2)
		}
		gs = append(gs, g)
	}
	if err := measure(os.Stdout, *d, gs); err != nil {
		fmt.Fprintln(os.Stderr, "latency:", err)
		os.Exit(1)
	}
}

func measure(w io.Writer, d time.Duration, levels []int) error {
	fmt.Fprintf(w, "NextID latency, every call timed, %v per row, GOMAXPROCS %d\n\n", d, runtime.GOMAXPROCS(0))
	type row struct {
		c     contender
		g     int
		r     load.Result
		stats string
	}
	var rows []row
	for _, c := range contenders {
		for _, g := range levels {
			next, stats, closeFn, err := c.open()
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			r := load.Run(load.Config{Goroutines: g, Duration: d}, next)
			rw := row{c: c, g: g, r: r}
			if stats != nil {
				rw.stats = stats()
			}
			closeFn()
			if r.Err != nil {
				// Reported, not fatal: the other rows still measure.
				rw.stats = strings.TrimPrefix(rw.stats+"; ", "; ") + "a goroutine stopped at: " + r.Err.Error()
			}
			rows = append(rows, rw)
		}
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "implementation\tgoroutines\tIDs/s\tp50\tp99\tp99.9\tmax\t")
	for _, rw := range rows {
		h := rw.r.Latency
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%v\t%v\t%v\t%v\t\n", rw.c.name, rw.g, rw.r.PerSecond(),
			load.Round(load.Quantile(h, 0.5)), load.Round(load.Quantile(h, 0.99)),
			load.Round(load.Quantile(h, 0.999)), load.Round(load.Max(h)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, rw := range rows {
		if rw.stats != "" {
			fmt.Fprintf(w, "\n%s, %d goroutines: %s\n", rw.c.name, rw.g, rw.stats)
		}
		if rw.c.histogram {
			fmt.Fprintf(w, "\n%s, %d goroutines: calls by latency\n", rw.c.name, rw.g)
			printHistogram(w, rw.r.Latency)
		}
	}
	return nil
}

// bar is the calls whose latency fell in [from, to).
type bar struct {
	from, to time.Duration
	count    int64
}

// powersOfTwo folds h's buckets into power-of-two ranges of nanoseconds,
// from the one holding the fastest call to the one holding the slowest,
// runs of empty ranges folded into one: a view short enough to print.
func powersOfTwo(h *hdrhistogram.Histogram) []bar {
	var bars []bar
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		l := bits.Len64(uint64(b.From))
		from, to := time.Duration(1)<<l>>1, time.Duration(1)<<l
		switch n := len(bars); {
		case n > 0 && bars[n-1].from == from:
			bars[n-1].count += b.Count
			continue
		case n > 0 && bars[n-1].to < from:
			bars = append(bars, bar{from: bars[n-1].to, to: from})
		}
		bars = append(bars, bar{from: from, to: to, count: b.Count})
	}
	return bars
}

// printHistogram prints h in power-of-two ranges (powersOfTwo), each with a
// bar of up to 50 characters on a log scale so that a handful of slow calls
// still shows.
func printHistogram(w io.Writer, h *hdrhistogram.Histogram) {
	bars := powersOfTwo(h)
	var most int64
	for _, b := range bars {
		most = max(most, b.count)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	for _, b := range bars {
		width := 0
		if b.count > 0 {
			width = 1 + int(49*logRatio(b.count, most))
		}
		fmt.Fprintf(tw, "  [%v,\t%v)\t%d\t %s\n", load.Round(b.from), load.Round(b.to), b.count, strings.Repeat("#", width))
	}
	tw.Flush()
}

// logRatio is log(n)/log(most), 0 for n <= 1.
func logRatio(n, most int64) float64 {
	if n <= 1 || most <= 1 {
		return 0
	}
	return math.Log2(float64(n)) / math.Log2(float64(most))
}
