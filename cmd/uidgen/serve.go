package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/seed4d941b13/uidgen/segment"
)

// maxIDs is the most IDs one GET /ids may ask for: 10,000 IDs are about
// 220 kB of JSON, and a caller that wants more asks again.
const maxIDs = 10_000

// The Content-Type values, made once so that setting one allocates
// nothing.
var (
	textPlain = []string{"text/plain; charset=utf-8"}
	jsonType  = []string{"application/json"}
)

const serveSynopsis = `serve [-addr HOST:PORT] [-generator cached|default] [-shutdown-timeout D]
             [[-db FILE] [-worker ID] | -dsn DSN [-lease] | -etcd ENDPOINTS [-etcd-prefix P] | -redis URL [-redis-prefix P]]
             [-segment-table NAME] [-max-tags N] [-create-tags] [-serial NAME=PATTERN ... [-tz ZONE]]
             [-lease-ttl D] [-lease-horizon D] [-worker-ids LO-HI] [-layout NAME | layout flags] [-after ID]

Serves IDs over HTTP, for services in any language:

  GET /id             one new ID, as text
  GET /ids?n=N        N new IDs, 1 <= N <= 10000: a JSON array of strings, or
                      one per line when the Accept header prefers text/plain
  GET /parse/{uid}    the ID taken apart, as JSON with string numbers
  GET /healthz        200 while IDs can be had (it takes one), 503 and why otherwise
  GET /metrics        Prometheus metrics of the generator, and of each tag served
  GET /               a status page for a person, where Accept prefers text/html
                      (a browser): the worker ID, its lease, the ring, each tag

It leases its worker ID from the SQLite file of -db (the default), from
-dsn's database, or from etcd or Redis. With the file or -dsn it also serves
the dense numbers of the segment tags in the leaf_alloc table there
(-segment-table), as gen -segment does:

  GET /segment/{tag}          the tag's next number, as text
  GET /segment/{tag}/ids?n=N  N numbers of the tag, as /ids gives IDs
  GET /segments               each tag served: its ring, claims and numbers held, as JSON

  GET /serial/{name}          the next serial number of -serial NAME=PATTERN, as text
  GET /serial/{name}/ids?n=N  N of them, as /ids gives IDs

Each -serial's numbers restart each period its pattern's dates name
(ORD-{yyyy}{MM}{dd}-{seq:6}: each day, in -tz's zone, the local zone by
default), from the tags NAME:<date> of the same table (docs/serial.md).

A tag is served only if its row is in the table, unless -create-tags; its
generator opens on its first request, up to -max-tags of them, and gives
its unused numbers back at exit. An unknown tag gets 404, a tag past
-max-tags or a failing database 503; with etcd or Redis, which keep no
tags, these routes answer 501.

Meituan Leaf's leaf-server routes answer as leaf-server does, so that its
clients need only a new host name: the number as text, or status 500 and
Spring Boot's JSON error body (message "Result{id=-2, status=EXCEPTION}"
for a tag not in the table, "Result{id=-3, status=EXCEPTION}" for a failure):

  /api/segment/get/{key}      the next number of tag key
  /api/snowflake/get/{key}    an ID of the generator, as /id (key ignored);
                              Leaf's own layout with -layout leaf
  /decodeSnowflakeId?snowflakeId=ID
                              ID taken apart in Leaf's layout, as Leaf's JSON

Bad input gets a 4xx status and a JSON body {"error": "..."} saying what was
wrong. It prints the address it listens on to stderr. SIGTERM or SIGINT stops
it: it stops accepting, lets requests in flight finish (up to
-shutdown-timeout), gives each tag's unused numbers and a leased worker ID
back and exits 0.`

func runServe(args []string, _, stderr io.Writer, store leaseStore) error {
	fs := newFlagSet("serve", serveSynopsis, "uidgen serve -addr 127.0.0.1:8080 -worker 3\n"+
		"  uidgen serve -addr 127.0.0.1:8080 -dsn 'root@tcp(127.0.0.1:3306)/test' -lease   # and the tags of leaf_alloc", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on; port 0 picks a free port")
	generator := fs.String("generator", "cached", "cached (the ring) or default (per-call Snowflake)")
	grace := fs.Duration("shutdown-timeout", 10*time.Second, "on SIGTERM or SIGINT, how long requests in flight may take to finish")
	table := fs.String("segment-table", segment.DefaultTable, "the table of the segment tags served")
	maxTags := fs.Int("max-tags", defaultMaxTags, "the most tags served; a generator holds 1 MiB of numbers")
	createTags := fs.Bool("create-tags", false, "serve tags not in the table too, creating their rows (and the table)")
	var claims claimFlags
	claims.register(fs, "of a segment tag")
	specs := serialSpecs{}
	fs.Var(specs, "serial", "serve GET /serial/NAME: serial numbers of `NAME=PATTERN` that restart each period of its dates (repeatable):\n"+patternHelp)
	var zone zoneFlag
	zone.register(fs)
	var mf makerFlags
	mf.register(fs, store)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	case *grace <= 0:
		return fmt.Errorf("%w: -shutdown-timeout %v: must be more than 0", ErrUsage, *grace)
	case *maxTags < 1:
		return fmt.Errorf("%w: -max-tags %d: must be 1 or more", ErrUsage, *maxTags)
	}
	tagDSN, err := mf.worker.tagDSN()
	if err != nil {
		return err
	}
	if zone.name != "" && len(specs) == 0 {
		return fmt.Errorf("%w: -tz needs -serial: it is the zone of the serial numbers' dates", ErrUsage)
	}
	if name := setFlag(fs, append([]string{"segment-table", "max-tags", "create-tags", "serial"}, claimFlagNames...)...); name != "" && tagDSN == "" {
		return fmt.Errorf("%w: -%s needs -dsn or -db: the tags live in a table, not in %s", ErrUsage, name, "-"+mf.worker.store.store.Flag())
	}
	// Signals that arrive while the worker ID is assigned wait for the
	// server to start, then stop it: a leased ID is given back either way.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	g, _, err := mf.open(*generator)
	if err != nil {
		return err
	}
	var tags *tagServer
	closeAll := g.close
	if tagDSN != "" {
		if tags, err = newTagServer(tagDSN, *table, *maxTags, *createTags, claims); err != nil {
			return errors.Join(err, g.close())
		}
		if len(specs) > 0 {
			if tags.serials, err = tags.openSerials(specs, &zone); err != nil {
				return errors.Join(err, tags.close(), g.close())
			}
		}
		closeAll = func() error { return errors.Join(tags.close(), g.close()) }
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return errors.Join(fmt.Errorf("%w: -addr %s: %v", ErrUsage, *addr, err), closeAll())
	}
	srv := &http.Server{
		Handler:           newIDServer(g, tags).routes(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(stderr, "uidgen serve: ", 0),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "uidgen serve: listening on %s (%s generator, worker ID %d)\n", ln.Addr(), *generator, g.workerID)
	if tags != nil {
		fmt.Fprintf(stderr, "uidgen serve: serving up to %d segment tags of table %s\n", *maxTags, *table)
	}

	select {
	case err := <-served:
		return errors.Join(fmt.Errorf("serve: %w", err), closeAll())
	case <-ctx.Done():
	}
	stop() // a second signal ends the process at once, as by default
	fmt.Fprintf(stderr, "uidgen serve: stopping: no new connections; finishing requests in flight (up to %v)\n", *grace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	var shutdownErr error
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		shutdownErr = fmt.Errorf("requests still in flight after -shutdown-timeout %v were cut off: %w", *grace, err)
	}
	<-served // http.ErrServerClosed
	// No request runs now, so none can find a generator closed, and each
	// tag's generator gives back all it did not hand out.
	if err := errors.Join(shutdownErr, closeAll()); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "uidgen serve: stopped")
	return nil
}

// idServer is the HTTP face of one generator, and of the segment tags of
// a table where tags is not nil.
type idServer struct {
	g       maker
	tags    *tagServer
	metrics http.Handler
	bufs    sync.Pool // of *idsBuf
	now     func() time.Time
	rate    idRate // IDs a second between loads of the status page
}

// idsBuf is what one GET /ids fills: the IDs, and the body made of them.
type idsBuf struct {
	ids []int64
	out []byte
}

func newIDServer(g maker, tags *tagServer) *idServer {
	reg := prometheus.NewRegistry()
	reg.MustRegister(g.collector, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	gather := prometheus.Gatherers{reg}
	if tags != nil {
		// The tags' metrics share names with the generator's, with a tag
		// label: one Registry refuses that, so they have their own.
		gather = append(gather, tags.reg)
	}
	s := &idServer{g: g, tags: tags, metrics: promhttp.HandlerFor(gather, promhttp.HandlerOpts{}), now: time.Now}
	s.bufs.New = func() any { return &idsBuf{ids: make([]int64, maxIDs)} }
	return s
}

func (s *idServer) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/id", onlyGet(s.id))
	mux.Handle("/ids", onlyGet(s.ids))
	mux.Handle("/parse/{uid...}", onlyGet(s.parse))
	mux.Handle("/healthz", onlyGet(s.health))
	mux.Handle("/metrics", onlyGet(s.metrics.ServeHTTP))
	mux.Handle("/segment/{tag}", onlyGet(s.segmentID))
	mux.Handle("/segment/{tag}/ids", onlyGet(s.segmentIDs))
	mux.Handle("/segments", onlyGet(s.segments))
	mux.Handle("/serial/{name}", onlyGet(s.serialOne))
	mux.Handle("/serial/{name}/ids", onlyGet(s.serialIDs))
	// leaf-server maps these for every method (@RequestMapping without one).
	mux.HandleFunc("/api/segment/get/{key}", s.leafSegment)
	mux.HandleFunc("/api/snowflake/get/{key}", s.leafSnowflake)
	mux.HandleFunc("/decodeSnowflakeId", s.leafDecode)
	mux.HandleFunc("/{$}", s.root)
	mux.HandleFunc("/", notFound)
	return mux
}

// notFound answers a path serve has no route for with 404 and the routes
// it has.
func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, fmt.Sprintf("no such path %q: try %s", r.URL.Path, strings.Join(routeList, ", ")))
}

// onlyGet answers any method but GET with 405 and a JSON error.
func onlyGet(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s: use GET", r.Method, r.URL.Path))
			return
		}
		h(w, r)
	})
}

func (s *idServer) id(w http.ResponseWriter, _ *http.Request) {
	uid, err := s.g.next()
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeNumber(w, uid)
}

// writeNumber answers n as a line of text.
func writeNumber(w http.ResponseWriter, n int64) {
	var buf [24]byte
	w.Header()["Content-Type"] = textPlain
	w.Write(append(strconv.AppendInt(buf[:0], n, 10), '\n'))
}

func (s *idServer) ids(w http.ResponseWriter, r *http.Request) {
	n, err := idsWanted(r.URL.RawQuery)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	buf := s.bufs.Get().(*idsBuf)
	defer s.bufs.Put(buf)
	ids := buf.ids[:n]
	if _, err := s.g.nextIDs(ids); err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	buf.write(w, r, ids)
}

// write answers r with ids, a prefix of b.ids: a JSON array of strings, or
// one per line where r's Accept header prefers text/plain.
func (b *idsBuf) write(w http.ResponseWriter, r *http.Request, ids []int64) {
	out := b.out[:0]
	if prefersText(r.Header.Get("Accept")) {
		w.Header()["Content-Type"] = textPlain
		for _, uid := range ids {
			out = append(strconv.AppendInt(out, uid, 10), '\n')
		}
	} else {
		w.Header()["Content-Type"] = jsonType
		out = append(out, '[')
		for i, uid := range ids {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(strconv.AppendInt(append(out, '"'), uid, 10), '"')
		}
		out = append(out, "]\n"...)
	}
	b.out = out
	w.Write(out)
}

// idsWanted returns the n of a /ids query, or an error that says what is
// wrong with it.
func idsWanted(rawQuery string) (int, error) {
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return 0, fmt.Errorf("bad query %q: %v", rawQuery, err)
	}
	switch ns := q["n"]; {
	case len(ns) == 0:
		return 0, fmt.Errorf("no n: want /ids?n=N with N from 1 to %d", maxIDs)
	case len(ns) > 1:
		return 0, fmt.Errorf("n given %d times (%s): want it once, from 1 to %d", len(ns), strings.Join(ns, ", "), maxIDs)
	default:
		n, err := strconv.Atoi(ns[0])
		if err != nil {
			return 0, fmt.Errorf("n %q is not a whole number: want 1 to %d", ns[0], maxIDs)
		}
		if n < 1 || n > maxIDs {
			return 0, fmt.Errorf("n %d is out of range: want 1 to %d", n, maxIDs)
		}
		return n, nil
	}
}

// prefersText reports whether an Accept header rates text/plain above
// application/json. A tie, and no header, go to JSON.
func prefersText(accept string) bool {
	return accept != "" && quality(accept, "text", "plain") > quality(accept, "application", "json")
}

// quality returns the q that an Accept header gives typ/sub: that of the
// most specific media range matching it, 0 where none does. A range that
// does not parse counts for nothing; a q that does not parse, as 1.
func quality(accept, typ, sub string) float64 {
	q, specificity := 0.0, -1
	for _, part := range strings.Split(accept, ",") {
		mediaType, params, err := mime.ParseMediaType(part)
		if err != nil {
			continue
		}
		t, s, _ := strings.Cut(mediaType, "/")
		var spec int
		switch {
		case t == typ && s == sub:
			spec = 2
		case t == typ && s == "*":
			spec = 1
		case t == "*" && s == "*":
			spec = 0
		default:
			continue
		}
		if spec <= specificity {
			continue
		}
		specificity, q = spec, 1
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
				q = f
			}
		}
	}
	return q
}

func (s *idServer) parse(w http.ResponseWriter, r *http.Request) {
	raw := r.PathValue("uid")
	if raw == "" {
		writeError(w, http.StatusBadRequest, "no ID to parse: want /parse/{uid}, uid a 64-bit integer")
		return
	}
	uid, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		why := "is not a 64-bit integer"
		if errors.Is(err, strconv.ErrRange) {
			why = "is out of the range of a 64-bit integer"
		}
		writeError(w, http.StatusBadRequest, fmt.Sprintf("ID %q %s", raw, why))
		return
	}
	writeJSON(w, http.StatusOK, s.g.parse(uid))
}

// health takes an ID and throws it away: the surest sign that IDs can be
// had, whatever stands in the way (a spent layout, a lost lease, a
// reservation run out).
func (s *idServer) health(w http.ResponseWriter, _ *http.Request) {
	if _, err := s.g.next(); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":"encoding the response failed"}`)
	}
	w.Header()["Content-Type"] = jsonType
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
