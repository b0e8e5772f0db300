// Command report turns one run of bench/run.sh into bench/RESULTS.md and
// bench/ids-per-second.png: median IDs/s per implementation and goroutine
// count, the ratios that matter, benchstat's table, the latency histograms,
// CPU at a steady rate and ring memory, with the machine, Go version and
// date they were measured on.
//
//	go run ./cmd/report -results results -benchtime 1s -out .
//
// It reads, from the results directory, bench.txt (`go test -bench`),
// benchstat.txt, latency.txt (cmd/latency), cpu.txt (cmd/cpu), memory.txt
// (cmd/memory) and peers.txt (`go list -m`). The sections of the old RESULTS.md that other
// commands own, and the one written by hand, are kept as they are, last
// (package sections).
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/seed4d941b13/uidgen/bench/internal/resultsmd"
)

const plotFile = "ids-per-second.png"

func main() {
	dir := flag.String("results", "results", "directory holding bench.txt, benchstat.txt, latency.txt, cpu.txt, memory.txt and peers.txt")
	benchtime := flag.String("benchtime", "1s", "the -benchtime the run used, for the record")
	out := flag.String("out", ".", "directory to write RESULTS.md and "+plotFile+" to")
	flag.Parse()
	if err := report(*dir, *benchtime, *out); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func report(dir, benchtime, out string) error {
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		return string(b), err
	}
	raw, err := read("bench.txt")
	if err != nil {
		return err
	}
	res, err := readResults([]byte(raw), "bench.txt")
	if err != nil {
		return err
	}
	r := &run{
		res:       res,
		date:      time.Now().UTC().Format(time.DateOnly),
		goVersion: runtime.Version(),
		cores:     runtime.NumCPU(),
		benchtime: benchtime,
	}
	for name, dst := range map[string]*string{"peers.txt": &r.peers, "benchstat.txt": &r.benchstat,
		"latency.txt": &r.latency, "cpu.txt": &r.cpu, "memory.txt": &r.memory} {
		if *dst, err = read(name); err != nil {
			return err
		}
	}
	old, err := os.ReadFile(filepath.Join(out, "RESULTS.md"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	r.kept = resultsmd.Kept(string(old))

	var md, plot bytes.Buffer
	if err := writeMarkdown(&md, r, plotFile); err != nil {
		return err
	}
	title := fmt.Sprintf("uidgen and peers on %s (%d cores), %s, %s", res.cpu, r.cores, r.goVersion, r.date)
	if err := writePlot(&plot, res, title); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "RESULTS.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, plotFile), plot.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Print(ratios(res))
	return nil
}
