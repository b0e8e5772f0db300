package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/cmd/uidgen/internal/serve"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// serveStartTimeout bounds how long a served process may take to print
// its address; serveStopTimeout how long it may take to exit once
// signalled, with its requests in flight done.
const (
	serveStartTimeout = 30 * time.Second
	serveStopTimeout  = 15 * time.Second
)

// server is the test binary re-executed as uidgen serve on a free loopback
// port.
type server struct {
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT
	stderr *fleettest.SyncBuffer
	done   chan struct{} // closed when the process has exited
	err    error         // its exit error, once done
	client *http.Client  // nil: http.DefaultClient
	token  string        // where not "", the bearer token of every request that names no Authorization
}

var listening = regexp.MustCompile(`^uidgen serve: listening on (\S+) `)

// startServer runs uidgen serve -addr 127.0.0.1:0 with args and returns
// once it has printed the address it listens on. The test's end kills it
// if it still runs.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	isolateDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd, err := fleettest.Command(ctx, append([]string{"serve", "-addr", "127.0.0.1:0"}, args...)...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &server{cmd: cmd, stderr: new(fleettest.SyncBuffer), done: make(chan struct{})}
	pipe, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	addr := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(pipe)
		for lines.Scan() {
			fmt.Fprintln(s.stderr, lines.Text())
			if m := listening.FindStringSubmatch(lines.Text()); m != nil {
				addr <- m[1]
			}
		}
		s.err = s.cmd.Wait()
		close(s.done)
	}()
	select {
	case a := <-addr:
		s.url = "http://" + a
	case <-s.done:
		t.Fatalf("uidgen %s exited before it listened: %v\n%s", strings.Join(args, " "), s.err, s.stderr)
	case <-time.After(serveStartTimeout):
		t.Fatalf("uidgen %s printed no address in %v:\n%s", strings.Join(args, " "), serveStartTimeout, s.stderr)
	}
	return s
}

// stop sends sig and waits for the process to exit, failing t unless it
// exits with status 0 within serveStopTimeout.
func (s *server) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(serveStopTimeout):
		t.Fatalf("still running %v after %v:\n%s", serveStopTimeout, sig, s.stderr)
	}
	if s.err != nil {
		t.Fatalf("exit after %v: %v\n%s", sig, s.err, s.stderr)
	}
}

// reply is an HTTP response, read whole.
type reply struct {
	status int
	header http.Header
	body   string
}

// do sends a request to the server and reads the whole reply.
func (s *server) do(t testing.TB, method, path string, header ...string) reply {
	t.Helper()
	r, err := s.try(method, path, header...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// try is do that returns its error, for goroutines other than the test's.
func (s *server) try(method, path string, header ...string) (reply, error) {
	req, err := http.NewRequest(method, s.url+path, nil)
	if err != nil {
		return reply{}, err
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := s.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, fmt.Errorf("%s %s: reading the body: %w", method, path, err)
	}
	return reply{resp.StatusCode, resp.Header, string(body)}, nil
}

// texts reads the strings of a /id or /ids reply: a JSON array of
// strings, or text with one per line.
func (r reply) texts() ([]string, error) {
	if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		return strings.Split(strings.TrimSuffix(r.body, "\n"), "\n"), nil
	}
	var fields []string
	if err := json.Unmarshal([]byte(r.body), &fields); err != nil {
		return nil, fmt.Errorf("body %.100q: %w", r.body, err)
	}
	return fields, nil
}

// ids reads the IDs of a /id or /ids reply, as texts reads its strings.
func (r reply) ids() ([]int64, error) {
	fields, err := r.texts()
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(fields))
	for i, f := range fields {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("ID %d of %.100q: %w", i, r.body, err)
		}
		ids[i] = id
	}
	return ids, nil
}

// metric returns the value of the Prometheus metric name at /metrics.
func (s *server) metric(t *testing.T, name string) float64 {
	t.Helper()
	r := s.do(t, "GET", "/metrics")
	for line := range strings.Lines(r.body) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return f
		}
	}
	t.Fatalf("no %s in /metrics (status %d):\n%s", name, r.status, r.body)
	return 0
}

// TestServeEndpoints: every endpoint answers as documented, on both
// generators, and /metrics counts the IDs the others hand out.
func TestServeEndpoints(t *testing.T) {
	for _, c := range contenders {
		t.Run(c.name, func(t *testing.T) {
			s := startServer(t, "-worker", "7", "-generator", c.name)
			layout := uidgen.DefaultLayout()
			before := s.metric(t, "uidgen_ids_total")

			one := s.do(t, "GET", "/id")
			ids, err := one.ids()
			if one.status != 200 || one.header.Get("Content-Type") != "text/plain; charset=utf-8" || err != nil || len(ids) != 1 {
				t.Fatalf("GET /id: %d %s %q (%v), want 200, text/plain and one ID", one.status, one.header.Get("Content-Type"), one.body, err)
			}
			got := [][]int64{ids}
			for _, accept := range []string{"", "application/json", "text/plain", "text/plain, application/json;q=0.5", "*/*"} {
				r := s.do(t, "GET", "/ids?n=50", "Accept", accept)
				wantType := "application/json"
				if strings.HasPrefix(accept, "text/plain") {
					wantType = "text/plain; charset=utf-8"
				}
				ids, err := r.ids()
				if r.status != 200 || r.header.Get("Content-Type") != wantType || err != nil || len(ids) != 50 {
					t.Fatalf("GET /ids?n=50, Accept %q: %d %s, %d IDs (%v); want 200, %s, 50 IDs",
						accept, r.status, r.header.Get("Content-Type"), len(ids), err, wantType)
				}
				got = append(got, ids)
			}
			most := s.do(t, "GET", fmt.Sprintf("/ids?n=%d", serve.MaxIDs))
			if ids, err := most.ids(); most.status != 200 || err != nil || len(ids) != serve.MaxIDs {
				t.Fatalf("GET /ids?n=%d: %d, %d IDs, %v", serve.MaxIDs, most.status, len(ids), err)
			} else {
				got = append(got, ids)
			}
			idtest.Check(t, idtest.As(layout, 7), [][]int64{joined(got)})

			parsed := s.do(t, "GET", fmt.Sprintf("/parse/%d", ids[0]))
			var p struct{ UID, WorkerID, Sequence string }
			if err := json.Unmarshal([]byte(parsed.body), &p); parsed.status != 200 || err != nil ||
				p.UID != strconv.FormatInt(ids[0], 10) || p.WorkerID != "7" {
				t.Fatalf("GET /parse/%d: %d %s (%v), want its UID and worker ID 7", ids[0], parsed.status, parsed.body, err)
			}
			if want := strconv.FormatInt(layout.Parse(ids[0]).Sequence, 10); p.Sequence != want {
				t.Errorf("GET /parse/%d: sequence %s, want %s", ids[0], p.Sequence, want)
			}
			// The ends of the range parse, as `uidgen parse` parses them.
			for _, uid := range []string{"0", "9223372036854775807"} {
				if r := s.do(t, "GET", "/parse/"+uid); r.status != 200 || !strings.Contains(r.body, `"uid":"`+uid+`"`) {
					t.Errorf("GET /parse/%s: %d %s, want 200 and it taken apart", uid, r.status, r.body)
				}
			}
			if h := s.do(t, "GET", "/healthz"); h.status != 200 || !strings.Contains(h.body, `"status":"ok"`) {
				t.Errorf("GET /healthz: %d %s, want 200 ok", h.status, h.body)
			}
			// /id, 5 × /ids?n=50, /ids?n=serve.MaxIDs, and the ID /healthz takes.
			if got, want := s.metric(t, "uidgen_ids_total")-before, float64(1+5*50+serve.MaxIDs+1); got != want {
				t.Errorf("uidgen_ids_total rose by %v, want %v", got, want)
			}
			if w := s.metric(t, "uidgen_worker_id"); w != 7 {
				t.Errorf("uidgen_worker_id %v, want 7", w)
			}
			s.stop(t, syscall.SIGTERM)
		})
	}
}

func joined(idss [][]int64) []int64 {
	var all []int64
	for _, ids := range idss {
		all = append(all, ids...)
	}
	return all
}

// TestServeBadInput: every kind of bad request gets a 4xx and a JSON error
// that says what was wrong, and the server goes on serving.
func TestServeBadInput(t *testing.T) {
	s := startServer(t, "-worker", "7")
	tests := []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/ids", 400, "no n: want /ids?n=N with N from 1 to 10000"},
		{"GET", "/ids?n=", 400, `n "" is not a whole number: want 1 to 10000`},
		{"GET", "/ids?n=abc", 400, `n "abc" is not a whole number`},
		{"GET", "/ids?n=1.5", 400, `n "1.5" is not a whole number`},
		{"GET", "/ids?n=0", 400, "n 0 is out of range: want 1 to 10000"},
		{"GET", "/ids?n=-3", 400, "n -3 is out of range"},
		{"GET", "/ids?n=10001", 400, "n 10001 is out of range: want 1 to 10000"},
		{"GET", "/ids?n=99999999999999999999999", 400, "is not a whole number"},
		{"GET", "/ids?n=1&n=2", 400, "n given 2 times (1, 2)"},
		{"GET", "/ids?n=%zz", 400, "bad query"},
		{"GET", "/parse/", 400, "no ID to parse"},
		{"GET", "/parse/12x", 400, `bad ID string: "12x" is not a 64-bit integer in decimal: character 3, 'x', is not one of 0-9`},
		{"GET", "/parse/9223372036854775808", 400, `ID out of range: "9223372036854775808" in decimal is past 2^63-1`},
		{"GET", "/parse/1/2", 400, `"1/2" is not a 64-bit integer in decimal`},
		{"GET", "/parse/-5", 400, `ID out of range: "-5" in decimal is negative, and no ID is`},
		{"GET", "/nowhere", 404, `no such path "/nowhere"`},
		{"GET", "/id/", 404, `no such path "/id/"`},
		{"POST", "/id", 405, "method POST not allowed on /id: use GET"},
		{"PUT", "/ids?n=1", 405, "method PUT not allowed on /ids"},
		{"DELETE", "/parse/1", 405, "method DELETE not allowed"},
		{"POST", "/healthz", 405, "not allowed"},
		{"POST", "/metrics", 405, "not allowed"},
		{"GET", "/segment/order/ids?n=0", 400, "n 0 is out of range: want 1 to 10000"},
		{"GET", "/segment/order/ids", 400, "no n: want /ids?n=N"},
		{"POST", "/segment/order", 405, "method POST not allowed on /segment/order"},
		{"POST", "/segments", 405, "not allowed"},
		{"GET", "/segment/", 404, `no such path "/segment/"`},
		{"GET", "/id?opaque=1", 400, "opaque=1 asks for opaque IDs, and this server has no key: start uidgen serve with -opaque-key FILE"},
		{"GET", "/ids?n=3&opaque=true", 400, "this server has no key"},
		{"GET", "/id?opaque=yes", 400, `opaque "yes": want 0, 1, true or false`},
		{"GET", "/ids?n=3&opaque=", 400, `opaque "": want 0, 1, true or false`},
		{"GET", "/id?%zz", 400, "bad query"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := s.do(t, tt.method, tt.path)
			var body struct{ Error string }
			if err := json.Unmarshal([]byte(r.body), &body); err != nil || r.header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s %q: want a JSON error (%v)", r.status, r.header.Get("Content-Type"), r.body, err)
			}
			if r.status != tt.status || !strings.Contains(body.Error, tt.want) {
				t.Fatalf("%d %q, want %d and an error containing %q", r.status, body.Error, tt.status, tt.want)
			}
			if tt.status == 405 && r.header.Get("Allow") != "GET" {
				t.Errorf("405 with Allow %q, want GET", r.header.Get("Allow"))
			}
		})
	}
	if r := s.do(t, "GET", "/id"); r.status != 200 {
		t.Fatalf("GET /id after the bad requests: %d %s", r.status, r.body)
	}
	s.stop(t, syscall.SIGINT)
}

// TestServeUniqueUnderLoad: many clients at once, each asking for single
// IDs and batches in turn, never get an ID twice, and each client's IDs
// increase, on both generators.
func TestServeUniqueUnderLoad(t *testing.T) {
	const clients = 16
	requests := sizetest.Pick(300, 50)
	// 16 sequence bits: 65,536 IDs a second, so that the default generator
	// hands out the 80,000 or so IDs in about a second.
	layout := idtest.Layout(t, bits.Spec{TimeBits: 36, WorkerBits: 11, SeqBits: 16})
	for _, c := range contenders {
		t.Run(c.name, func(t *testing.T) {
			s := startServer(t, "-worker", "9", "-generator", c.name, "-time-bits", "36", "-worker-bits", "11", "-seq-bits", "16")
			got := make([][]int64, clients)
			errs := make([]error, clients)
			gate := make(chan struct{})
			var wg sync.WaitGroup
			for i := range clients {
				wg.Go(func() {
					<-gate
					for j := range requests {
						path := "/id"
						if j%3 == 1 {
							path = fmt.Sprintf("/ids?n=%d", 1+(i*requests+j)%97)
						}
						r, err := s.try("GET", path)
						if err == nil && r.status != 200 {
							err = fmt.Errorf("GET %s: %d %s", path, r.status, r.body)
						}
						var ids []int64
						if err == nil {
							ids, err = r.ids()
						}
						if err != nil {
							errs[i] = err
							return
						}
						got[i] = append(got[i], ids...)
					}
				})
			}
			close(gate)
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			n := idtest.Check(t, idtest.As(layout, 9), got)
			t.Logf("%d clients, %d IDs, all unique", clients, n)
			s.stop(t, syscall.SIGTERM)
		})
	}
}

// TestServeShutdownFinishesInFlight: a request in flight when SIGTERM
// comes is answered in full, new connections are refused, and the process
// exits 0. The default generator with 8 sequence bits makes 256 IDs a
// second, so a request for 600 takes two seconds or more: in flight for
// sure once /metrics shows it has begun.
func TestServeShutdownFinishesInFlight(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startServer(t, "-worker", "5", "-generator", "default", "-time-bits", "40", "-worker-bits", "15", "-seq-bits", "8")
			type result struct {
				r   reply
				err error
			}
			inFlight := make(chan result, 1)
			go func() {
				r, err := s.try("GET", "/ids?n=600")
				inFlight <- result{r, err}
			}()
			for s.metric(t, "uidgen_ids_total") == 0 {
				// Each look is a request that waits for the generator's
				// mutex, so this polls only until the request begins.
			}
			start := time.Now()
			s.stop(t, sig)
			res := <-inFlight
			if res.err != nil || res.r.status != 200 {
				t.Fatalf("the request in flight at %v: %v, %d %.200s", sig, res.err, res.r.status, res.r.body)
			}
			ids, err := res.r.ids()
			if err != nil || len(ids) != 600 {
				t.Fatalf("the request in flight got %d IDs (%v), want 600", len(ids), err)
			}
			layout := idtest.Layout(t, bits.Spec{TimeBits: 40, WorkerBits: 15, SeqBits: 8})
			idtest.Check(t, idtest.As(layout, 5), [][]int64{ids})
			if _, err := s.try("GET", "/id"); err == nil {
				t.Fatalf("GET /id after exit: answered")
			}
			if !strings.Contains(s.stderr.String(), "uidgen serve: stopped") {
				t.Errorf("stderr does not say it stopped:\n%s", s.stderr)
			}
			t.Logf("exited %v after %v", sig, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestServeReleasesLease: serve -lease holds its worker ID while it runs
// and gives it back when SIGTERM stops it, on each database.
func TestServeReleasesLease(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		db := s.Open(t)
		table := dbtest.Table(t, db, "WORKER_NODE_")
		srv := startServer(t, "-dsn", s.DSN, "-table", table, "-lease")
		ids, err := srv.do(t, "GET", "/ids?n=10").ids()
		if err != nil {
			t.Fatal(err)
		}
		w := uidgen.DefaultLayout().Parse(ids[0]).WorkerID
		owner := func() (owned bool) {
			t.Helper()
			if err := db.QueryRow(s.Dialect().Rebind("SELECT OWNER IS NOT NULL FROM "+table+" WHERE ID = ?"), w).Scan(&owned); err != nil {
				t.Fatal(err)
			}
			return owned
		}
		if !owner() {
			t.Fatalf("worker ID %d has no owner while serve runs", w)
		}
		if l := srv.metric(t, "uidgen_lease_remaining_seconds"); l <= 0 || l > 30 {
			t.Errorf("uidgen_lease_remaining_seconds %v, want within the default 30 s TTL", l)
		}
		srv.stop(t, syscall.SIGTERM)
		if owner() {
			t.Fatalf("worker ID %d still has an owner after serve stopped", w)
		}
	})
}

func TestServeBadCalls(t *testing.T) {
	testBadCalls(t, []badCall{
		{[]string{"serve", "-shutdown-timeout", "0s"}, "-shutdown-timeout 0s: must be more than 0"},
		{[]string{"serve", "now"}, `unexpected argument "now"`},
		{[]string{"serve", "-generator", "fast"}, `-generator "fast": want cached or default`},
		{[]string{"serve", "-worker", "-3"}, "-worker -3: a leased worker ID is 1 or more"},
		{[]string{"serve", "-addr", "127.0.0.1"}, "-addr 127.0.0.1: listen tcp: address 127.0.0.1: missing port in address"},
		{[]string{"serve", "-worker", "3", "-worker-ids", "1-5"}, "-worker and -worker-ids both given"},
		{[]string{"serve", "-max-tags", "0", "-dsn", "root@tcp(127.0.0.1:1)/x"}, "-max-tags 0: must be 1 or more"},
		{[]string{"serve", "-create-tags", "-redis", "redis://127.0.0.1:1"}, "-create-tags needs -dsn or -db: the tags live in a table, not in -redis"},
		{[]string{"serve", "-segment-table", "t", "-etcd", "127.0.0.1:1"}, "-segment-table needs -dsn or -db"},
	})
}

// discard is a ResponseWriter that keeps nothing, so the handler
// benchmarks time the handlers and the mux, without a network.
type discard struct{ h http.Header }

func (w *discard) Header() http.Header         { return w.h }
func (w *discard) Write(b []byte) (int, error) { return len(b), nil }
func (w *discard) WriteHeader(int)             {}

// BenchmarkHandlerID is GET /id through serve's mux and handler, and
// BenchmarkHandlerBare a mux whose handler writes a constant of the same
// size: the work serve adds to a request, beside what a request costs
// over the network (bench/RESULTS.md).
func BenchmarkHandlerID(b *testing.B) {
	g, err := openContender("cached", cached.Config{Assigner: uidgen.Static(1)})
	if err != nil {
		b.Fatal(err)
	}
	defer g.close()
	benchHandler(b, serve.New(serve.Config{Generator: g.served, Metrics: g.metrics}))
}

func BenchmarkHandlerBare(b *testing.B) {
	body := []byte("512991495129688974\n")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /id", func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Content-Type"] = []string{"text/plain; charset=utf-8"}
		w.Write(body)
	})
	benchHandler(b, mux)
}

func benchHandler(b *testing.B, h http.Handler) {
	r, err := http.NewRequest("GET", "/id", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(&discard{h: http.Header{}}, r)
	}
}
