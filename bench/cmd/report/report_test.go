package main

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen/bench/internal/resultsmd"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/seed4d941b13/uidgen/bench
cpu: Test CPU   
BenchmarkAtomic/goroutines=1-2    100  10 ns/op  100000000 IDs/s  0 B/op  0 allocs/op
BenchmarkAtomic/goroutines=1-2    100  10 ns/op  120000000 IDs/s  0 B/op  0 allocs/op
BenchmarkAtomic/goroutines=1-2    100  10 ns/op  80000000 IDs/s  0 B/op  0 allocs/op
BenchmarkCached/goroutines=1-2    100  20 ns/op  50000000 IDs/s  0 B/op  0 allocs/op
BenchmarkCached/goroutines=2-2    100  20 ns/op  40000000 IDs/s  0 B/op  0 allocs/op
BenchmarkDefaultgen/goroutines=1-2  100  1 ns/op  8000 IDs/s  0 B/op  0 allocs/op
BenchmarkUnknown/goroutines=1-2   100  1 ns/op  1 IDs/s
BenchmarkNoRate/goroutines=1-2    100  1 ns/op
BenchmarkOpaque/Hide/layout=a/goroutines=1-2  100  300 ns/op  3000000 IDs/s  0 B/op  0 allocs/op
BenchmarkOpaque/Hide/layout=b/goroutines=1-2  100  300 ns/op  3000000 IDs/s  0 B/op  0 allocs/op
BenchmarkOpaque/Hide/layout=a/goroutines=1-2  100  300 ns/op  3000000 IDs/s  0 B/op  0 allocs/op
BenchmarkOpaque/Hide/layout=b/goroutines=1-2  100  300 ns/op  3000000 IDs/s  0 B/op  0 allocs/op
--- FAIL: BenchmarkCachedBatch/goroutines=64-2
    bench_test.go:81: ring is empty
--- FAIL: BenchmarkCachedBatch
BenchmarkCached/goroutines=2-2    100  20 ns/op  40000000 IDs/s  0 B/op  0 allocs/op
BenchmarkCached/goroutines=2-2    --- FAIL: BenchmarkCached/goroutines=2-2
    bench_test.go:81: stalled
BenchmarkCached/goroutines=2-2    --- FAIL: BenchmarkCached/goroutines=2-2
    bench_test.go:81: stalled again
--- FAIL: BenchmarkEtcdLeased
    etcd_test.go:40: no etcd binary
--- FAIL: BenchmarkCachedTwitter/goroutines=2-2
    bench_test.go:81: stalled twitter
--- FAIL: BenchmarkCachedTwitter
--- FAIL: BenchmarkSegment/tags=1-2
    segment_test.go:10: claim failed
--- FAIL: BenchmarkSegment
    segment_test.go:5: table dropped
`

func TestReport(t *testing.T) {
	res, err := readResults([]byte(sample), "sample")
	if err != nil {
		t.Fatal(err)
	}
	if res.cpu != "Test CPU" || res.runs() != 3 || len(res.levels) != 3 {
		t.Fatalf("cpu %q, %d runs, levels %v", res.cpu, res.runs(), res.levels)
	}
	if m, _ := res.median("Atomic", 1); m != 1e8 {
		t.Errorf("atomic median %v, want 1e8", m)
	}
	var got []string
	for _, im := range res.present() {
		got = append(got, im.label)
	}
	if strings.Join(got, ",") != "atomic,cached,cached batch,defaultgen" {
		t.Errorf("present: %v", got)
	}

	var md bytes.Buffer
	r := &run{res: res, date: "2026-01-02", goVersion: "go1.26", cores: 2, benchtime: "1s",
		peers: "x v1\n", benchstat: "table\n", latency: "hist\n", cpu: "cpu table\n", memory: "ring heap\n",
		kept: resultsmd.Kept("# old\n\n" + resultsmd.Serve + "\nwrk\n\n" + resultsmd.ByHand + "\nby hand\n")}
	if err := writeMarkdown(&md, r, "plot.png"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Measured 2026-01-02 on Test CPU (2 cores), go1.26, in 3 rounds of `-count 1 -benchtime 1s`",
		"| atomic | 100M | | | none",
		"- **1 goroutine**, cached NextID at 50.0M IDs/s: 2.00× the ns/op of the atomic floor; 6.25k× the IDs/s of defaultgen.\n",
		"- **2 goroutines**, cached NextID at 40.0M IDs/s.\n",
		"- **64 goroutines**: no cached NextID result in this run.\n",
		"| cached batch | | | **fails** |",
		"| cached | 50.0M | 40.0M, **2 runs failed** | |",
		"- cached at 2 goroutines, 2 runs: `bench_test.go:81: stalled`\n",
		// The benchmarks the table does not show follow, each failed leaf
		// once: not BenchmarkCachedBatch or BenchmarkCachedTwitter, which
		// failed only as parents, but BenchmarkSegment, which logged an
		// error of its own besides its sub-benchmark's.
		"- cached batch at 64 goroutines, 1 run: `bench_test.go:81: ring is empty`\n" +
			"- BenchmarkEtcdLeased, 1 run: `etcd_test.go:40: no etcd binary`\n" +
			"- BenchmarkCachedTwitter/goroutines=2, 1 run: `bench_test.go:81: stalled twitter`\n" +
			"- BenchmarkSegment/tags=1, 1 run: `segment_test.go:10: claim failed`\n" +
			"- BenchmarkSegment, 1 run: `segment_test.go:5: table dropped`\n\n",
		"![IDs per second by implementation and goroutines](plot.png)",
		"## CPU at a steady rate\n",
		"```text\ncpu table\n```\n\n## Ring memory\n",
		"```text\nring heap\n```\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("RESULTS.md lacks %q:\n%s", want, md.String())
		}
	}

	if !strings.HasSuffix(md.String(), "```\n\n"+resultsmd.Serve+"\nwrk\n\n"+resultsmd.ByHand+"\nby hand\n") {
		t.Errorf("RESULTS.md does not end with the kept section:\n%s", md.String())
	}

	var plot bytes.Buffer
	if err := writePlot(&plot, res, "title"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&plot)
	if err != nil || img.Bounds().Dx() != plotW {
		t.Fatalf("plot: %v, bounds %v", err, img.Bounds())
	}
}

func TestDecade(t *testing.T) {
	for d, want := range []string{"1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1G", "10G"} {
		if got := decade(d); got != want {
			t.Errorf("decade(%d) = %q, want %q", d, got, want)
		}
	}
}
