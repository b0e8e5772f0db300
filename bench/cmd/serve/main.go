// Command serve measures `uidgen serve` with wrk against a bare net/http
// handler that writes a constant reply of the same size, in the same run,
// and writes the section "## uidgen serve under wrk" of RESULTS.md.
//
//	go run ./cmd/serve                  # 3 rounds of 3 s per target, unpinned and pinned: about 2.5 minutes
//	go run ./cmd/serve -rounds 5 -d 5s
//
// It needs wrk, Debian's package (apt-get install wrk), and for the pinned
// runs taskset. It builds cmd/uidgen into a temporary directory, runs the
// bare handler as a second process of its own (this command with -bare),
// and takes turns: bare /id, uidgen /id, bare /ids, uidgen /ids?n=1000, a
// round at a time, so that the machine's moods fall on all alike; it
// reports the medians. wrk's output goes to results/serve.txt.
//
// On a machine of 2 cores, wrk and the server share them. Unpinned, the
// kernel spreads both over both cores; pinned, the server runs on CPU 0
// (so GOMAXPROCS is 1) and wrk on CPU 1, which keeps the load generator
// from taking the server's core.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/seed4d941b13/uidgen/bench/internal/resultsmd"

	"github.com/seed4d941b13/uidgen/bench/internal/uidgenbin"
)

// batch is the n of the /ids requests measured.
const batch = 1000

// sampleID stands in for an ID in the bare handler's replies: as many
// digits as the IDs of the default layout have until 2028.
const sampleID = "512991495129688974"

func main() {
	bare := flag.String("bare", "", "run as the bare handler, listening on this address (used by the command itself)")
	d := flag.Duration("d", 3*time.Second, "how long each wrk run lasts")
	rounds := flag.Int("rounds", 3, "rounds of the four targets per placement")
	conns := flag.Int("c", 32, "wrk's connections")
	out := flag.String("out", ".", "directory of RESULTS.md and results/")
	flag.Parse()
	if *bare != "" {
		if err := serveBare(*bare); err != nil {
			fmt.Fprintln(os.Stderr, "serve -bare:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*d, *rounds, *conns, *out); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
}

// bareReplies are the bare handler's constant replies: one ID as text,
// and a JSON array of batch IDs, the sizes of uidgen serve's.
func bareReplies() (id, ids []byte) {
	id = []byte(sampleID + "\n")
	ids = append([]byte(`["`+sampleID+`"`), bytes.Repeat([]byte(`,"`+sampleID+`"`), batch-1)...)
	return id, append(ids, "]\n"...)
}

// serveBare is the baseline: net/http writing a constant, with the
// Content-Type set as uidgen serve sets it.
func serveBare(addr string) error {
	id, ids := bareReplies()
	text, json := []string{"text/plain; charset=utf-8"}, []string{"application/json"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /id", func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = text
		w.Write(id)
	})
	mux.HandleFunc("GET /ids", func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = json
		w.Write(ids)
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("listening on %s\n", ln.Addr())
	return http.Serve(ln, mux)
}

// placement is how the servers and wrk share the cores: prefix commands
// of each.
type placement struct {
	name         string
	server, load []string
}

var placements = []placement{
	{"unpinned", nil, nil},
	{"pinned", []string{"taskset", "-c", "0"}, []string{"taskset", "-c", "1"}},
}

// target is one URL wrk measures.
type target struct {
	name, path string
	uidgen     bool
}

var targets = []target{
	{"bare /id", "/id", false},
	{"uidgen /id", "/id", true},
	{"bare /ids", "/ids", false},
	{"uidgen /ids", fmt.Sprintf("/ids?n=%d", batch), true},
}

func run(d time.Duration, rounds, conns int, out string) error {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return fmt.Errorf("%w: install Debian's package: apt-get install wrk", err)
	}
	bin, remove, err := uidgenbin.Build()
	if err != nil {
		return err
	}
	defer remove()
	self, err := os.Executable()
	if err != nil {
		return err
	}

	var raw bytes.Buffer
	samples := make(map[string]map[string][]float64) // placement, target: req/s of each run, sorted
	for _, p := range placements {
		if len(p.server) > 0 {
			if _, err := exec.LookPath(p.server[0]); err != nil {
				fmt.Fprintf(os.Stderr, "serve: %s: %v; skipped\n", p.name, err)
				continue
			}
		}
		m, err := measure(p, bin, self, wrk, d, rounds, conns, &raw)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		samples[p.name] = m
	}
	if err := os.MkdirAll(filepath.Join(out, "results"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "results", "serve.txt"), raw.Bytes(), 0o644); err != nil {
		return err
	}
	section := markdown(samples, wrkVersion(wrk), d, rounds, conns)
	fmt.Print(section)
	path := filepath.Join(out, "RESULTS.md")
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(path, []byte(resultsmd.Replace(string(old), resultsmd.Serve, section)), 0o644)
}

// measure starts both servers under p and runs wrk against each target in
// turn, rounds times, returning the req/s of each run, sorted, by target.
func measure(p placement, bin, self, wrk string, d time.Duration, rounds, conns int, raw io.Writer) (map[string][]float64, error) {
	uidgen, uidgenAddr, err := start(append(p.server, bin, "serve", "-addr", "127.0.0.1:0", "-worker", "1"), "stderr")
	if err != nil {
		return nil, err
	}
	defer stop(uidgen)
	bare, bareAddr, err := start(append(p.server, self, "-bare", "127.0.0.1:0"), "stdout")
	if err != nil {
		return nil, err
	}
	defer stop(bare)

	url := func(t target) string {
		if t.uidgen {
			return "http://" + uidgenAddr + t.path
		}
		return "http://" + bareAddr + t.path
	}
	wrkRun := func(t target, d time.Duration) (float64, error) {
		args := append(slices.Clone(p.load), wrk, "-t", "1", "-c", strconv.Itoa(conns), "-d", d.String(), url(t))
		cmd := exec.Command(args[0], args[1:]...)
		output, err := cmd.CombinedOutput()
		fmt.Fprintf(raw, "== %s, %s: %s\n%s\n", p.name, t.name, strings.Join(args, " "), output)
		if err != nil {
			return 0, fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, output)
		}
		return requestsPerSecond(output)
	}
	for _, t := range targets { // warm up: connections, the heap, the ring
		if _, err := wrkRun(t, time.Second); err != nil {
			return nil, err
		}
	}
	samples := make(map[string][]float64)
	for r := range rounds {
		for _, t := range targets {
			rps, err := wrkRun(t, d)
			if err != nil {
				return nil, err
			}
			samples[t.name] = append(samples[t.name], rps)
			fmt.Fprintf(os.Stderr, "%s, round %d: %-12s %10.0f req/s\n", p.name, r+1, t.name, rps)
		}
	}
	for _, s := range samples {
		slices.Sort(s)
	}
	return samples, nil
}

var (
	requestsLine = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)`)
	errorsLine   = regexp.MustCompile(`(?m)^\s*(Non-2xx or 3xx responses|Socket errors):.*$`)
)

// requestsPerSecond reads wrk's output: its Requests/sec, or an error where
// any request failed.
func requestsPerSecond(output []byte) (float64, error) {
	if m := errorsLine.Find(output); m != nil {
		return 0, fmt.Errorf("wrk saw failures: %s", bytes.TrimSpace(m))
	}
	m := requestsLine.FindSubmatch(output)
	if m == nil {
		return 0, fmt.Errorf("no Requests/sec in wrk's output: %s", output)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// start runs args and returns once it has printed "listening on ADDR" on
// stream, with ADDR.
func start(args []string, stream string) (*exec.Cmd, string, error) {
	cmd := exec.Command(args[0], args[1:]...)
	var pipe io.ReadCloser
	var err error
	if stream == "stdout" {
		cmd.Stderr = os.Stderr
		pipe, err = cmd.StdoutPipe()
	} else {
		pipe, err = cmd.StderrPipe()
	}
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	lines := bufio.NewScanner(pipe)
	for lines.Scan() {
		if _, rest, ok := strings.Cut(lines.Text(), "listening on "); ok {
			go io.Copy(io.Discard, pipe) // it must never block on a full pipe
			return cmd, strings.Fields(rest)[0], nil
		}
	}
	stop(cmd)
	return nil, "", fmt.Errorf("%s printed no address", strings.Join(args, " "))
}

// stop ends a server with SIGTERM, as a deployment would, and waits.
func stop(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
}

func wrkVersion(wrk string) string {
	output, _ := exec.Command(wrk, "--version").CombinedOutput()
	if f := strings.Fields(string(output)); len(f) > 1 {
		return f[0] + " " + f[1]
	}
	return "wrk"
}

// cpuName returns the processor's model name, as /proc/cpuinfo gives it.
func cpuName() string {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for line := range strings.Lines(string(info)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

// markdown writes the section of RESULTS.md from each placement's
// samples: medians, and the spread of the runs where it tells how far to
// trust them.
func markdown(samples map[string]map[string][]float64, wrk string, d time.Duration, rounds, conns int) string {
	medians := make(map[string]map[string]float64)
	for p, targets := range samples {
		medians[p] = make(map[string]float64)
		for t, s := range targets {
			medians[p][t] = s[len(s)/2]
		}
	}
	var b strings.Builder
	id, ids := bareReplies()
	b.WriteString(resultsmd.Serve)
	fmt.Fprintf(&b, "\nMeasured %s on %d cores (%s, as /proc/cpuinfo names it), %s, by `go run ./cmd/serve`,\n",
		time.Now().UTC().Format(time.DateOnly), runtime.NumCPU(), cpuName(), runtime.Version())
	plural := "s"
	if rounds == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "which rewrites this section: %s, 1 thread, %d connections, %d round%s of %v per target taken in\n", wrk, conns, rounds, plural, d)
	b.WriteString("turn, medians")
	b.WriteString(" (wrk's output is in [results/serve.txt](results/serve.txt)). The bare handler is net/http writing a\n")
	fmt.Fprintf(&b, "constant of the size of uidgen's reply: %d bytes for /id, %d for /ids. `uidgen serve -worker 1`\n", len(id), len(ids))
	b.WriteString("runs the cached generator. Unpinned, wrk and the server share both cores as the kernel likes;\n")
	b.WriteString("pinned, the server runs on CPU 0 (GOMAXPROCS 1) and wrk on CPU 1. Req/s are medians, with\n")
	b.WriteString("the slowest and fastest run in brackets: the machine is shared, and runs of one target swing.\n\n")

	var placed []string
	for _, p := range placements {
		if samples[p.name] != nil {
			placed = append(placed, p.name)
		}
	}
	b.WriteString("| |")
	for _, p := range placed {
		fmt.Fprintf(&b, " %s |", p)
	}
	b.WriteString("\n|---|" + strings.Repeat("--:|", len(placed)) + "\n")
	// row writes a row whose cell for placement p is value(p, its medians).
	row := func(label string, value func(p string, m map[string]float64) string) {
		fmt.Fprintf(&b, "| %s |", label)
		for _, p := range placed {
			fmt.Fprintf(&b, " %s |", value(p, medians[p]))
		}
		b.WriteString("\n")
	}
	rps := func(name string) func(p string, m map[string]float64) string {
		return func(p string, m map[string]float64) string {
			s := samples[p][name]
			return fmt.Sprintf("%s (%s–%s)", resultsmd.SI(m[name]), resultsmd.SI(s[0]), resultsmd.SI(s[len(s)-1]))
		}
	}
	row("bare handler, /id: req/s", rps("bare /id"))
	row("uidgen serve, GET /id: req/s", rps("uidgen /id"))
	row("**/id ÷ bare** (goal: 0.8 or more)", func(_ string, m map[string]float64) string {
		return fmt.Sprintf("**%.2f**", m["uidgen /id"]/m["bare /id"])
	})
	row("bare handler, /ids: req/s", rps("bare /ids"))
	row(fmt.Sprintf("uidgen serve, GET /ids?n=%d: req/s", batch), rps("uidgen /ids"))
	row("… IDs/s", func(_ string, m map[string]float64) string { return resultsmd.SI(m["uidgen /ids"] * batch) })
	row("**IDs/s through /ids ÷ bare /id req/s**", func(_ string, m map[string]float64) string {
		return fmt.Sprintf("**%.0f×**", m["uidgen /ids"]*batch/m["bare /id"])
	})
	row("/ids req/s ÷ bare /ids (same size)", func(_ string, m map[string]float64) string {
		return fmt.Sprintf("%.2f", m["uidgen /ids"]/m["bare /ids"])
	})
	return b.String()
}
