// Command memory reports what the cached generator's ring costs in memory:
// the bytes of one slot, and the peak resident set of `uidgen bench` with
// the default layout beside one of 20 sequence bits, whose ring of
// 2^20 << 3 slots is the largest a common layout asks for.
//
//	go run ./cmd/memory -d 1s
//
// It builds cmd/uidgen (package uidgenbin) and reads each run's peak
// RSS from the kernel's rusage of the child, as /usr/bin/time -v does.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/ringbuffer"

	"github.com/seed4d941b13/uidgen/bench/internal/uidgenbin"
)

// layouts are the ones measured: time, worker and sequence bits.
var layouts = []struct {
	name              string
	time, worker, seq int
}{
	{"default", 30, 20, 13},
	{"20 sequence bits", 31, 12, 20},
}

func main() {
	d := flag.Duration("d", time.Second, "how long `uidgen bench` runs each generator")
	flag.Parse()
	if err := run(*d); err != nil {
		fmt.Fprintln(os.Stderr, "memory:", err)
		os.Exit(1)
	}
}

func run(d time.Duration) error {
	perSlot, err := slotBytes()
	if err != nil {
		return err
	}
	bin, remove, err := uidgenbin.Build()
	if err != nil {
		return err
	}
	defer remove()

	fmt.Printf("ring slot: %.1f bytes (ringbuffer.New of 2^20 slots, heap bytes per slot)\n\n", perSlot)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "layout\ttime/worker/seq bits\tring slots\tring\tpeak RSS\t\n")
	for _, l := range layouts {
		args := []string{"bench", "-d", d.String(), "-worker", "1",
			"-time-bits", fmt.Sprint(l.time), "-worker-bits", fmt.Sprint(l.worker), "-seq-bits", fmt.Sprint(l.seq)}
		rss, err := peakRSS(bin, args)
		if err != nil {
			return err
		}
		slots := int64(1) << l.seq << cached.DefaultBoostPower
		fmt.Fprintf(w, "%s\t%d/%d/%d\t%d\t%.1f MiB\t%.0f MB\t\n",
			l.name, l.time, l.worker, l.seq, slots, float64(slots)*perSlot/(1<<20), float64(rss)/1e6)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("\npeak RSS: of `uidgen bench -d %v -worker 1` with the layout's bits, both generators in one process\n", d)
	return nil
}

// slotBytes returns the heap a ring takes per slot.
func slotBytes() (float64, error) {
	const size = 1 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := ringbuffer.New(ringbuffer.Config{Size: size})
	if err != nil {
		return 0, err
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(r)
	return float64(after.TotalAlloc-before.TotalAlloc) / size, nil
}

// peakRSS runs bin with args and returns its peak resident set in bytes.
func peakRSS(bin string, args []string) (int64, error) {
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer // progress lines; shown only on failure
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("uidgen %v: %w\n%s", args, err, stderr.Bytes())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, fmt.Errorf("no rusage for %s on %s", bin, runtime.GOOS)
	}
	return ru.Maxrss << 10, nil // Linux counts kilobytes
}
