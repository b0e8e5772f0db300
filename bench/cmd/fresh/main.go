// Command fresh measures how true to the clock the cached generator's IDs
// are at a steady load: for each rate it takes IDs at that pace for -d and
// reports how far behind the clock their seconds were, and with no load at
// all, how often the padder wakes and what CPU the process spends.
//
//	go run ./cmd/fresh -d 10s
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
)

func main() {
	d := flag.Duration("d", 10*time.Second, "how long to run each rate, and the idle spell")
	flag.Parse()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "IDs/s\tIDs\tmax lag\tmean lag\tstale thrown away\tpadder runs/s\t")
	for _, rate := range []int{1, 100, 10_000} {
		if err := measure(tw, rate, *d); err != nil {
			fmt.Fprintln(os.Stderr, "fresh:", err)
			os.Exit(1)
		}
	}
	tw.Flush()
	if err := idle(*d); err != nil {
		fmt.Fprintln(os.Stderr, "fresh:", err)
		os.Exit(1)
	}
}

func newGenerator() (*cached.Generator, error) {
	return cached.New(context.Background(), cached.Config{Assigner: uidgen.Static(1)})
}

// measure takes rate IDs a second for d, in a batch every 10 ms (one ID a
// tick below 100 a second), and prints how far behind the clock their
// seconds were: an ID of second 12:00:03 taken at 12:00:03.9 is 0.9 s
// behind, so a lag of 2.x s is within a MaxLag of 2 s.
func measure(tw *tabwriter.Writer, rate int, d time.Duration) error {
	g, err := newGenerator()
	if err != nil {
		return err
	}
	defer g.Close()
	period, batch := time.Second/time.Duration(rate), 1
	if rate > 100 {
		period, batch = 10*time.Millisecond, rate/100
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	var n int
	var worst, sum time.Duration
	for end := time.Now().Add(d); time.Now().Before(end); {
		<-tick.C
		for range batch {
			uid, err := g.NextID()
			if err != nil {
				return err
			}
			lag := time.Since(g.Layout().Parse(uid).Time)
			worst, sum, n = max(worst, lag), sum+lag, n+1
		}
	}
	s := g.Stats()
	fmt.Fprintf(tw, "%d\t%d\t%.2fs\t%.2fs\t%d\t%.2f\t\n", rate, n, worst.Seconds(), (sum / time.Duration(n)).Seconds(),
		s.Stale, float64(s.Fills)/d.Seconds())
	return nil
}

// idle starts a generator, takes nothing for d, and prints the padder's
// runs a second and the process's CPU a second of the spell.
func idle(d time.Duration) error {
	g, err := newGenerator()
	if err != nil {
		return err
	}
	defer g.Close()
	time.Sleep(time.Second) // past the first fill
	runs, cpu := g.Stats().Fills, cpuTime()
	time.Sleep(d)
	runs, cpu = g.Stats().Fills-runs, cpuTime()-cpu
	fmt.Printf("\nidle for %v: %.2f padder runs a second, %.3f ms of CPU a second (%.3f%% of a core)\n",
		d, float64(runs)/d.Seconds(), cpu.Seconds()*1000/d.Seconds(), 100*cpu.Seconds()/d.Seconds())
	return nil
}

// cpuTime returns the CPU time, user and system, the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
