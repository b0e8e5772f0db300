package main

import (
	"bytes"
	"fmt"
	"regexp"
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
// and goroutine count, the first words of each failure, and the run's
// configuration.
type results struct {
	cpu      string
	samples  map[string]map[int][]float64 // impl.bench -> goroutines -> IDs/s
	failures map[string]map[int]*failure  // impl.bench -> goroutines -> its failed runs
	others   []namedFailure               // failed benchmarks the main table does not show
	levels   []int                        // goroutine counts seen, ascending
}

// readResults parses `go test -bench` output: the results in the format
// benchfmt reads, and the failures that go test reports around them.
func readResults(raw []byte, name string) (*results, error) {
	res := &results{samples: map[string]map[int][]float64{}}
	res.failures, res.others = readFailures(raw)
	br := benchfmt.NewReader(bytes.NewReader(raw), name)
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
		res.addLevel(g)
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	for _, byLevel := range res.failures {
		for g := range byLevel {
			res.addLevel(g)
		}
	}
	if len(res.samples) == 0 && len(res.failures) == 0 && len(res.others) == 0 {
		return nil, fmt.Errorf("%s: no benchmark reports IDs/s", name)
	}
	slices.Sort(res.levels)
	return res, nil
}

func (r *results) addLevel(g int) {
	if !slices.Contains(r.levels, g) {
		r.levels = append(r.levels, g)
	}
}

// failure is what the runs of one sub-benchmark that failed left behind.
type failure struct {
	runs  int    // how many of the -count runs failed
	first string // the first line the first of them logged
}

// failLine is how go test reports a failed benchmark, after its name
// when the failure cut its result line short ("--- FAIL:
// BenchmarkCached/goroutines=64-2"), then what it logged, indented. A
// benchmark whose sub-benchmark failed is reported failed after it, with
// what it logged itself, if anything.
var failLine = regexp.MustCompile(`--- FAIL: Benchmark(\S+?)(?:-\d+)?\s*$`)

// tableName is the name of a sub-benchmark that the main table shows,
// once its benchmark is one of impls.
var tableName = regexp.MustCompile(`^(\w+)/goroutines=(\d+)$`)

// namedFailure is a failed benchmark that the main table does not show:
// one with no goroutine levels (the lease benchmarks, the encodings), or
// a sub-benchmark of one that is not in impls.
type namedFailure struct {
	name string // as go test names it, without "Benchmark" and GOMAXPROCS
	*failure
}

// readFailures finds the failed benchmarks in raw: those of the main
// table by implementation and goroutines, the rest by name, in the order
// they first failed. A benchmark that failed only because a sub-benchmark
// did, logging nothing of its own, is not listed again.
func readFailures(raw []byte) (table map[string]map[int]*failure, others []namedFailure) {
	byName := map[string]*failure{}
	var order []string
	lines := strings.Split(string(raw), "\n")
	for i, l := range lines {
		m := failLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := byName[m[1]]
		if f == nil {
			f = &failure{}
			byName[m[1]] = f
			order = append(order, m[1])
		}
		// What a benchmark logged is indented; a line that is not is the
		// next benchmark's result.
		if f.first == "" && i+1 < len(lines) && strings.HasPrefix(lines[i+1], " ") &&
			!failLine.MatchString(lines[i+1]) && strings.TrimSpace(lines[i+1]) != "" {
			f.first = strings.TrimSpace(lines[i+1])
		}
		f.runs++
	}
	table = map[string]map[int]*failure{}
	for _, name := range order {
		f := byName[name]
		if f.first == "" {
			if slices.ContainsFunc(order, func(sub string) bool { return strings.HasPrefix(sub, name+"/") }) {
				continue
			}
			f.first = "no message"
		}
		m := tableName.FindStringSubmatch(name)
		if m == nil || !slices.ContainsFunc(impls, func(im impl) bool { return im.bench == m[1] }) {
			others = append(others, namedFailure{name, f})
			continue
		}
		g, _ := strconv.Atoi(m[2]) // \d+: a number
		if table[m[1]] == nil {
			table[m[1]] = map[int]*failure{}
		}
		table[m[1]][g] = f
	}
	return table, others
}

// goroutines returns N of a name of the main table's shape,
// Impl/goroutines=N. A deeper one (BenchmarkOpaque's
// Hide/layout=uidgen/goroutines=2) is not a sample: counted, it would add
// a round per sub-benchmark to the rounds the report says it ran.
func goroutines(parts [][]byte) (int, bool) {
	if len(parts) == 0 {
		return 0, false
	}
	v, ok := bytes.CutPrefix(parts[0], []byte("/goroutines="))
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(string(v))
	return n, err == nil
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

// present returns the implementations the run measured or saw fail, in
// display order.
func (r *results) present() []impl {
	var out []impl
	for _, im := range impls {
		if r.samples[im.bench] != nil || r.failures[im.bench] != nil {
			out = append(out, im)
		}
	}
	return out
}
