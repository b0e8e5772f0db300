package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// impl describes one benchmarked implementation: the Benchmark function's
// name without its prefix, how tables and the plot name it, and the ceiling
// its layout puts on it, if any.
type impl struct {
	bench, label, cap string
}

// impls are the implementations in the order tables and the plot show them:
// the floor, uidgen, the peers. A result for a name not listed is left out.
var impls = []impl{
	{"Atomic", "atomic", "none: a bare atomic.Int64.Add, the floor"},
	{"Mutex", "mutex", "none: a counter under sync.Mutex"},
	{"Cached", "cached", "none while the time bits last: borrows future seconds"},
	{"CachedBatch", "cached batch", "as cached; NextIDs takes 64 IDs per call"},
	{"Defaultgen", "defaultgen", "8,192 IDs/s: 13 sequence bits a second, then callers sleep"},
	{"Snowflake", "snowflake", "4,096,000 IDs/s: 12 step bits a millisecond, then Generate spins"},
	{"Sonyflake", "sonyflake", "25,600 IDs/s: 8 sequence bits per 10 ms, then NextID sleeps"},
}

// results holds every IDs/s sample of a benchmark run, by implementation
// and goroutine count, and the run's configuration.
type results struct {
	cpu     string
	samples map[string]map[int][]float64 // impl.bench -> goroutines -> IDs/s
	levels  []int                        // goroutine counts seen, ascending
}

// readResults parses `go test -bench` output in the format benchfmt reads.
func readResults(r io.Reader, name string) (*results, error) {
	res := &results{samples: map[string]map[int][]float64{}}
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		rec, ok := br.Result().(*benchfmt.Result)
		if !ok {
			continue // unit metadata, or a syntax error benchstat reports too
		}
		if res.cpu == "" {
			res.cpu = strings.TrimSpace(rec.GetConfig("cpu"))
		}
		base, parts := rec.Name.Parts()
		g, ok := goroutines(parts)
		perSecond, hasRate := rec.Value("IDs/s")
		if !ok || !hasRate {
			continue
		}
		b := string(base)
		if res.samples[b] == nil {
			res.samples[b] = map[int][]float64{}
		}
		res.samples[b][g] = append(res.samples[b][g], perSecond)
		if !slices.Contains(res.levels, g) {
			res.levels = append(res.levels, g)
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	if len(res.samples) == 0 {
		return nil, fmt.Errorf("%s: no benchmark reports IDs/s", name)
	}
	slices.Sort(res.levels)
	return res, nil
}

// goroutines finds the goroutines=N part of a benchmark name.
func goroutines(parts [][]byte) (int, bool) {
	for _, p := range parts {
		if v, ok := bytes.CutPrefix(p, []byte("/goroutines=")); ok {
			n, err := strconv.Atoi(string(v))
			return n, err == nil
		}
	}
	return 0, false
}

// median returns the median IDs/s of bench at g goroutines, and whether
// there is one.
func (r *results) median(bench string, g int) (float64, bool) {
	s := slices.Clone(r.samples[bench][g])
	if len(s) == 0 {
		return 0, false
	}
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

// runs returns how many samples each measurement has: the -count.
func (r *results) runs() int {
	n := 0
	for _, byLevel := range r.samples {
		for _, s := range byLevel {
			n = max(n, len(s))
		}
	}
	return n
}

// present returns the implementations the run measured, in display order.
func (r *results) present() []impl {
	var out []impl
	for _, im := range impls {
		if r.samples[im.bench] != nil {
			out = append(out, im)
		}
	}
	return out
}
