package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/seed4d941b13/uidgen/bench/internal/resultsmd"
)

// run is everything RESULTS.md reports about one run of bench/run.sh.
type run struct {
	res       *results
	date      string // YYYY-MM-DD, UTC
	goVersion string
	cores     int
	benchtime string
	peers     string // `go list -m` lines: module and version
	benchstat string // benchstat's table
	latency   string // cmd/latency's output
	cpu       string // cmd/cpu's output
	memory    string // cmd/memory's output
	kept      string // the sections other commands own and the one written by hand (resultsmd.Kept), or ""
}

// writeMarkdown writes RESULTS.md.
func writeMarkdown(w io.Writer, r *run, plotFile string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# uidgen benchmarks\n\n")
	fmt.Fprintf(&b, "Measured %s on %s (%d cores), %s, in %d rounds of `-count 1 -benchtime %s`, by `bash bench/run.sh`,\n",
		r.date, r.res.cpu, r.cores, r.goVersion, r.res.runs(), r.benchtime)
	fmt.Fprintf(&b, "which rewrites this file; the raw output is in [results/](results/). The machine is shared and\n")
	fmt.Fprintf(&b, "noisy: read ratios within this one run, not absolute numbers across runs.\n\n")
	fmt.Fprintf(&b, "![IDs per second by implementation and goroutines](%s)\n\n", plotFile)

	fmt.Fprintf(&b, "## IDs per second (median of %d)\n\n", r.res.runs())
	b.WriteString("| implementation |")
	for _, g := range r.res.levels {
		fmt.Fprintf(&b, " %d goroutine%s |", g, plural(g))
	}
	b.WriteString(" ceiling |\n|---|")
	b.WriteString(strings.Repeat("--:|", len(r.res.levels)))
	b.WriteString("---|\n")
	for _, im := range r.res.present() {
		fmt.Fprintf(&b, "| %s |", im.label)
		for _, g := range r.res.levels {
			v, ok := r.res.median(im.bench, g)
			f := r.res.failures[im.bench][g]
			switch {
			case ok && f != nil:
				fmt.Fprintf(&b, " %s, **%d run%s failed** |", resultsmd.SI(v), f.runs, plural(f.runs))
			case ok:
				fmt.Fprintf(&b, " %s |", resultsmd.SI(v))
			case f != nil:
				b.WriteString(" **fails** |")
			default:
				b.WriteString(" |")
			}
		}
		fmt.Fprintf(&b, " %s |\n", im.cap)
	}
	b.WriteString("\nA per-millisecond or per-second Snowflake can go no faster than its ceiling, however\n")
	b.WriteString("good its code: those rows measure the layout as much as the library.\n\n")

	if f := failures(r.res); f != "" {
		b.WriteString("## Failures\n\nThese runs stopped at an error instead of measuring; the medians above are of the\nruns that finished, and a benchmark the table does not show has no numbers in this\nfile. The first line each logged:\n\n")
		b.WriteString(f)
		b.WriteString("\n")
	}

	b.WriteString("## Ratios that matter (same run, medians)\n\n")
	b.WriteString(ratios(r.res))

	b.WriteString("\n## Peers\n\n```text\n")
	b.WriteString(r.peers)
	b.WriteString("```\n\n")
	b.WriteString("No Go port of Baidu's uid-generator could be had from the Go module proxy when this suite\n")
	b.WriteString("was written: the ports found on GitHub declare module paths that are not their import paths\n")
	b.WriteString("(`module uid-generator-go`), or the proxy refuses them, so none is benchmarked here.\n")

	b.WriteString("\n## benchstat\n\n```text\n")
	b.WriteString(r.benchstat)
	b.WriteString("```\n\n## NextID latency under load\n\n")
	b.WriteString("Every call timed (the atomic row is the cost of reading the clock twice), in a\n")
	b.WriteString("histogram of 32 buckets per power of two; goroutines call NextID back to back.\n\n```text\n")
	b.WriteString(r.latency)
	b.WriteString("```\n\n## CPU at a steady rate\n\n")
	b.WriteString("What taking IDs costs a process, from `go run ./cmd/cpu`: each cell is a process of its own\n")
	b.WriteString("whose one goroutine takes IDs at that rate, its CPU time over wall time as a share of one core,\n")
	b.WriteString("start-up left out, so it counts the padder, the runtime and the pacing too; the atomic row is\n")
	b.WriteString("the pacing alone. The targets are cached at 100k IDs/s at most half of bwmarrin/snowflake's,\n")
	b.WriteString("cached idle at most 0.1% of a core, and its padder flat out at most 0.2 of a core.\n\n```text\n")
	b.WriteString(r.cpu)
	b.WriteString("```\n\n## Ring memory\n\n")
	b.WriteString("What the cached generator's ring costs, from `go run ./cmd/memory`: a ring holds\n")
	b.WriteString("2^seqBits << 3 IDs, but its memory is its runs, one a tick of two cache lines, so 20\n")
	b.WriteString("sequence bits cost what the default's 13 do. The 16-byte slots are what a ring of one slot\n")
	b.WriteString("an ID would take: the bound the ring stays under.\n\n```text\n")
	b.WriteString(r.memory)
	b.WriteString("```\n")
	if r.kept != "" {
		b.WriteString("\n")
		b.WriteString(r.kept)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ratios writes, per goroutine count, how the cached generator compares
// with the floor, with defaultgen and with each peer.
func ratios(res *results) string {
	var b strings.Builder
	for _, g := range res.levels {
		cached, ok := res.median("Cached", g)
		if !ok {
			fmt.Fprintf(&b, "- **%d goroutine%s**: no cached NextID result in this run.\n", g, plural(g))
			continue
		}
		var parts []string
		if v, ok := res.median("Atomic", g); ok {
			parts = append(parts, fmt.Sprintf("%s× the ns/op of the atomic floor", times(v/cached)))
		}
		if v, ok := res.median("CachedBatch", g); ok {
			parts = append(parts, fmt.Sprintf("NextIDs batches give %s× its IDs/s", times(v/cached)))
		}
		for _, peer := range []string{"Defaultgen", "Snowflake", "Sonyflake"} {
			if v, ok := res.median(peer, g); ok {
				parts = append(parts, fmt.Sprintf("%s× the IDs/s of %s", times(cached/v), labelOf(peer)))
			}
		}
		fmt.Fprintf(&b, "- **%d goroutine%s**, cached NextID at %s IDs/s", g, plural(g), resultsmd.SI(cached))
		if len(parts) > 0 {
			b.WriteString(": " + strings.Join(parts, "; "))
		}
		b.WriteString(".\n")
	}
	return b.String()
}

// times formats a ratio: two decimals below 10, then three significant
// digits.
func times(x float64) string {
	if x < 10 {
		return fmt.Sprintf("%.2f", x)
	}
	return resultsmd.SI(x)
}

// failures lists the failed benchmarks: the main table's in display
// order, then the others in the order they failed.
func failures(res *results) string {
	var b strings.Builder
	for _, im := range res.present() {
		for _, g := range res.levels {
			if f := res.failures[im.bench][g]; f != nil {
				fmt.Fprintf(&b, "- %s at %d goroutine%s, %d run%s: `%s`\n", im.label, g, plural(g), f.runs, plural(f.runs), f.first)
			}
		}
	}
	for _, f := range res.others {
		fmt.Fprintf(&b, "- Benchmark%s, %d run%s: `%s`\n", f.name, f.runs, plural(f.runs), f.first)
	}
	return b.String()
}

func labelOf(bench string) string {
	for _, im := range impls {
		if im.bench == bench {
			return im.label
		}
	}
	return bench
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
