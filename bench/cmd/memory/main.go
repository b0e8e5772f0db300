// Command memory reports what the cached generator's ring costs in memory:
// the heap of a generator built with the default layout, and with one of 20
// sequence bits, whose ring of 2^20 << 3 IDs is the largest a common layout
// asks for; beside it, what a ring of one 16-byte slot an ID takes; and the
// peak resident set of `uidgen bench` with each layout.
//
//	go run ./cmd/memory -d 1s
//
// It builds cmd/uidgen (package uidgenbin) and reads each run's peak
// RSS from the kernel's rusage of the child, as /usr/bin/time -v does.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/cached"

	"github.com/seed4d941b13/uidgen/bench/internal/uidgenbin"
)

// slotBytes is what a ring of one slot an ID spends on each ID: the bound
// the ring of runs must stay under at every layout.
const slotBytes = 16

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
	type heap struct{ ids, bytes int64 }
	heaps := make([]heap, len(layouts))
	for i, l := range layouts {
		ids, b, err := generatorHeap(bits.Spec{TimeBits: l.time, WorkerBits: l.worker, SeqBits: l.seq})
		if err != nil {
			return fmt.Errorf("%s layout: %w", l.name, err)
		}
		heaps[i] = heap{ids, b}
	}
	bin, remove, err := uidgenbin.Build()
	if err != nil {
		return err
	}
	defer remove()

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "layout\ttime/worker/seq bits\tring IDs\tgenerator heap\tas %d-byte slots\tpeak RSS\t\n", slotBytes)
	for i, l := range layouts {
		args := []string{"bench", "-d", d.String(), "-worker", "1",
			"-time-bits", fmt.Sprint(l.time), "-worker-bits", fmt.Sprint(l.worker), "-seq-bits", fmt.Sprint(l.seq)}
		rss, err := peakRSS(bin, args)
		if err != nil {
			return err
		}
		h := heaps[i]
		fmt.Fprintf(w, "%s\t%d/%d/%d\t%d\t%.1f KiB\t%.1f MiB\t%.0f MB\t\n",
			l.name, l.time, l.worker, l.seq, h.ids, float64(h.bytes)/(1<<10), float64(h.ids*slotBytes)/(1<<20), float64(rss)/1e6)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("\ngenerator heap: live heap after cached.New with the layout, its ring filled, less before it (least of %d)\n", heapTries)
	fmt.Printf("as %d-byte slots: what a ring of one %d-byte slot an ID takes: ring IDs × %d\n", slotBytes, slotBytes, slotBytes)
	fmt.Printf("peak RSS: of `uidgen bench -d %v -worker 1` with the layout's bits, both generators in one process\n", d)
	return nil
}

// heapTries is how many generators generatorHeap builds of a layout: the
// runtime's own allocations land in some tries by KiB, and the fewest
// bytes is the generator's.
const heapTries = 5

// generatorHeap builds cached generators of the layout s describes, in
// seconds from the default epoch, and returns the most IDs a ring holds
// and the least live heap a generator added once New had filled its ring.
func generatorHeap(s bits.Spec) (ids, heap int64, err error) {
	layout, err := uidgen.NewLayout(s, time.Second, uidgen.DefaultLayout().Epoch())
	if err != nil {
		return 0, 0, err
	}
	for i := range heapTries {
		before := liveHeap()
		g, err := cached.New(context.Background(), cached.Config{Layout: layout, Assigner: uidgen.Static(1)})
		if err != nil {
			return 0, 0, err
		}
		if h := liveHeap() - before; i == 0 || h < heap {
			heap = h
		}
		ids = g.Stats().Size
		if err := g.Close(); err != nil {
			return 0, 0, err
		}
	}
	return ids, heap, nil
}

// liveHeap returns the bytes of heap objects that survive a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
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
