// Command cpu measures what taking IDs costs a process in CPU at a steady
// rate: for each implementation and rate (idle, a take a second; 10k,
// 100k and 1M IDs a second), a child process of its own takes IDs from one
// goroutine at that rate for -d, and the table shows the process's CPU
// time (user and system, getrusage) over wall time, as a share of one core.
// A last row runs the cached generator flat out with one taker locked to
// its thread: the process's CPU less that thread's is the share of a core
// the padder and the runtime take to keep up.
//
//	go run ./cmd/cpu -d 10s
//
// Each measurement has a process of its own (the command re-executes
// itself with -child), so that no generator's goroutines, garbage or
// start-up land on another's numbers.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/sony/sonyflake/v2"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/baseline"

	"github.com/seed4d941b13/uidgen/bench/internal/resultsmd"
)

// rates are the columns: IDs a second.
var rates = []struct {
	label     string
	perSecond int
}{
	{"idle (1/s)", 1},
	{"10k/s", 10_000},
	{"100k/s", 100_000},
	{"1M/s", 1_000_000},
}

// impl is one implementation: open builds it and returns its NextID and a
// func that releases it.
type impl struct {
	name    string
	ceiling int // the most IDs a second its layout makes; 0: no ceiling below these rates
	open    func() (next func() (int64, error), close func(), err error)
}

var impls = []impl{
	{name: "atomic", open: func() (func() (int64, error), func(), error) {
		// The baseline: what the pacing costs when a take costs nothing.
		return baseline.Atomic(), func() {}, nil
	}},
	{name: "cached", open: func() (func() (int64, error), func(), error) {
		g, err := cached.New(context.Background(), cached.Config{Assigner: uidgen.Static(1)})
		if err != nil {
			return nil, nil, err
		}
		return g.NextID, func() { g.Close() }, nil
	}},
	{name: "defaultgen", ceiling: 8_192, open: func() (func() (int64, error), func(), error) {
		g, err := defaultgen.New(context.Background(), defaultgen.Config{Assigner: uidgen.Static(1)})
		if err != nil {
			return nil, nil, err
		}
		return g.NextID, func() { g.Close() }, nil
	}},
	{name: "bwmarrin/snowflake", open: func() (func() (int64, error), func(), error) {
		n, err := snowflake.NewNode(1)
		if err != nil {
			return nil, nil, err
		}
		return func() (int64, error) { return n.Generate().Int64(), nil }, func() {}, nil
	}},
	{name: "sonyflake", ceiling: 25_600, open: func() (func() (int64, error), func(), error) {
		sf, err := sonyflake.New(sonyflake.Settings{MachineID: func() (int, error) { return 1, nil }})
		if err != nil {
			return nil, nil, err
		}
		return sf.NextID, func() {}, nil
	}},
}

func lookup(name string) (impl, bool) {
	for _, im := range impls {
		if im.name == name {
			return im, true
		}
	}
	return impl{}, false
}

func main() {
	d := flag.Duration("d", 10*time.Second, "how long each child takes IDs")
	child := flag.String("child", "", "measure only the `implementation` named, in this process, and print the sample as JSON (how the command runs its children)")
	rate := flag.Int("rate", 0, "with -child: IDs a second to take; 0: flat out, the taker locked to its thread")
	flag.Parse()
	if *d <= 0 {
		fmt.Fprintf(os.Stderr, "cpu: -d %v: must be more than 0\n", *d)
		os.Exit(2)
	}
	var err error
	if *child != "" {
		err = runChild(os.Stdout, *child, *rate, *d)
	} else {
		err = run(os.Stdout, *d)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cpu:", err)
		os.Exit(1)
	}
}

// cell is one measurement, or why there is none.
type cell struct {
	s   sample
	err error
}

// run measures every implementation at every rate below its ceiling, then
// the padder flat out, each in a child, one at a time, and writes the
// table to w.
func run(w io.Writer, d time.Duration) error {
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	cells := map[string][]*cell{} // impl -> one per rate, nil above its ceiling
	for _, im := range impls {
		for _, r := range rates {
			var c *cell
			if im.ceiling == 0 || r.perSecond <= im.ceiling {
				c = &cell{}
				c.s, c.err = measure(bin, im.name, r.perSecond, d)
			}
			cells[im.name] = append(cells[im.name], c)
		}
	}
	flat, flatErr := measure(bin, "cached", 0, d)

	fmt.Fprintf(w, "CPU of a process taking IDs at a steady rate: its CPU time (user+sys) over wall time, as a\n")
	fmt.Fprintf(w, "share of one core. One goroutine takes %d IDs a tick (a tick a millisecond at 1M/s, a second\n", batch)
	fmt.Fprintf(w, "idle); %v a cell, a process each, GOMAXPROCS %d.\n\n", d, runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "implementation\t")
	for _, r := range rates {
		fmt.Fprintf(tw, "%s\t", r.label)
	}
	fmt.Fprintln(tw)
	var failures []string
	for _, im := range impls {
		fmt.Fprintf(tw, "%s\t", im.name)
		for i, c := range cells[im.name] {
			switch {
			case c == nil:
				fmt.Fprint(tw, "above its ceiling\t")
			case c.err != nil:
				fmt.Fprint(tw, "fails\t")
				failures = append(failures, fmt.Sprintf("%s at %s: %v", im.name, rates[i].label, c.err))
			default:
				fmt.Fprintf(tw, "%s%s\t", percent(c.s.share(c.s.Process)), short(c.s, rates[i].perSecond))
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\natomic is a bare atomic counter: what the pacing and the runtime cost with no generator.\n")
	fmt.Fprintf(w, "defaultgen makes at most 8,192 IDs/s (13 sequence bits a second), sonyflake 25,600 (256 a 10 ms,\n")
	fmt.Fprintf(w, "so at 10k/s it sleeps through each tick's %d as it does at its ceiling).\n", batch)
	for _, f := range failures {
		fmt.Fprintf(w, "failed: %s\n", f)
	}

	fmt.Fprintln(w)
	if c, b, a := cells["cached"][2], cells["bwmarrin/snowflake"][2], cells["atomic"][2]; c.err == nil && b.err == nil {
		cs, bs := c.s.share(c.s.Process), b.s.share(b.s.Process)
		fmt.Fprintf(w, "cached ÷ bwmarrin/snowflake at %s: %.2f (target: 0.5 or less)\n", rates[2].label, cs/bs)
		if a.err == nil {
			as := a.s.share(a.s.Process)
			fmt.Fprintf(w, "  less the atomic row's (the pacing): cached %s, bwmarrin/snowflake %s of a core\n", percent(cs-as), percent(bs-as))
		}
	}
	if c := cells["cached"][0]; c.err == nil {
		fmt.Fprintf(w, "cached at %s: %s of a core (target: 0.1%% or less)\n", rates[0].label, percent(c.s.share(c.s.Process)))
	}
	if flatErr != nil {
		fmt.Fprintf(w, "padder flat out: failed: %v\n", flatErr)
		return nil
	}
	fmt.Fprintf(w, "padder flat out: cached, one taker locked to its thread, %v: %s IDs/s; process %.2f cores, taker thread %.2f;\n",
		d, resultsmd.SI(flat.perSecond()), flat.share(flat.Process), flat.share(flat.Taker))
	fmt.Fprintf(w, "  padder and runtime, the difference: %.2f of a core (target: 0.2 or less)\n",
		flat.share(flat.Process)-flat.share(flat.Taker))
	return nil
}

// measure runs bin as a child measuring name at rate for d, and returns
// its sample.
func measure(bin, name string, rate int, d time.Duration) (sample, error) {
	cmd := exec.Command(bin, "-child", name, "-rate", fmt.Sprint(rate), "-d", d.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var s sample
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		return sample{}, fmt.Errorf("child's output %q: %w", stdout.Bytes(), err)
	}
	return s, nil
}

// short notes the rate a child reached when it fell more than 1% short of
// the one asked for: its CPU share is then of a smaller load.
func short(s sample, rate int) string {
	if got := s.perSecond(); got < 0.99*float64(rate) {
		return fmt.Sprintf(" (at %s/s)", resultsmd.SI(got))
	}
	return ""
}

// percent formats a share of a core as a percentage with two or three
// significant digits. A difference of noisy shares can be below 0.
func percent(share float64) string {
	p := 100 * share
	switch a := math.Abs(p); {
	case a >= 10:
		return fmt.Sprintf("%.0f%%", p)
	case a >= 1:
		return fmt.Sprintf("%.1f%%", p)
	case a >= 0.1:
		return fmt.Sprintf("%.2f%%", p)
	default:
		return fmt.Sprintf("%.3f%%", p)
	}
}
