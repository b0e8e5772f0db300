// Package serve is the HTTP side of `uidgen serve`: a Server hands out the
// IDs of one generator, the dense numbers of the segment tags of a table
// (Tags), and serial numbers, on serve's own routes and on Meituan Leaf's
// leaf-server routes, with Prometheus metrics and a status page.
//
//	h := serve.New(serve.Config{Generator: g, Metrics: collector, Tags: tags})
//	err := serve.Run(ctx, ln, h, 10*time.Second, logger)
//
// Where Config.Tokens names bearer tokens, every route answers only a
// request that carries one; TLS and client certificates are the listener's.
//
// It knows the generator only through Generator, so the command builds the
// generator and the tags from its flags, and this package serves them.
// The routes, their statuses and bodies are docs/serve.md's.
package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/seed4d941b13/uidgen"
)

// MaxIDs is the most IDs one GET /ids may ask for: 10,000 IDs are about
// 220 kB of JSON, and a caller that wants more asks again.
const MaxIDs = 10_000

// The Content-Type values, made once so that setting one allocates
// nothing.
var (
	textPlain = []string{"text/plain; charset=utf-8"}
	jsonType  = []string{"application/json"}
)

// Generator is what a Server needs of the generator whose IDs it hands
// out: the cached one or the default one, behind the command's adapter.
type Generator interface {
	NextID() (int64, error)
	// NextIDs fills dst from the front, as cached.Generator.NextIDs does,
	// and returns how many it filled and why it stopped short.
	NextIDs(dst []int64) (int, error)
	WorkerID() int64
	Layout() uidgen.Layout
	// Stats returns what the status page shows of the generator now.
	Stats() Stats
}

// Stats is what the status page shows of the Generator.
type Stats struct {
	Taken         int64         // IDs handed out
	RingSize      int64         // slots in the ring; 0 for a generator without one
	RingAvailable int64         // IDs waiting in the ring
	Ahead         time.Duration // ID time borrowed beyond the clock

	// MaxAhead bounds Ahead (cached.Config.MaxAhead, -max-ahead); 0 is no
	// bound. What it costs: the generator makes at most 2^SeqBits IDs a
	// tick, and past that its takes wait for the clock; ClockWait is how
	// long it has waited for the clock under the bound, in all.
	MaxAhead  time.Duration
	ClockWait time.Duration

	Lease uidgen.LeaseStats
}

// Config is what a Server serves.
type Config struct {
	Generator Generator            // required
	Metrics   prometheus.Collector // the Generator's, at /metrics beside Go's and the process's; nil: none
	Tags      *Tags                // nil: the segment and serial routes answer that segment mode is off
	Opaque    *uidgen.Opaque       // hides the IDs of /id and /ids asked with opaque=1; nil: those answer 400

	// Tokens are the bearer tokens of which every request must carry one
	// ("Authorization: Bearer TOKEN"), each checked by the command; a
	// request without one gets 401 and is served nothing. nil: none is
	// asked for. MetricsOpen leaves /metrics, alone, open to a scraper
	// without one.
	Tokens      []string
	MetricsOpen bool
}

// readHeaderTimeout and idleTimeout bound a client that sends its request
// slowly, and a connection left open between requests.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 2 * time.Minute
)

// Run serves h on ln until serving fails or ctx is done. Then it stops
// accepting, logs that it is stopping, and lets the requests in flight
// finish for up to grace; those still running after it are cut off, and
// Run says so. Once Run returns no request runs, so that the caller may
// close what the handler uses. logger takes net/http's errors and the
// stopping line.
func Run(ctx context.Context, ln net.Listener, h http.Handler, grace time.Duration, logger *log.Logger) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          logger,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Printf("stopping: no new connections; finishing requests in flight (up to %v)", grace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	var shutdownErr error
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		shutdownErr = fmt.Errorf("requests still in flight after -shutdown-timeout %v were cut off: %w", grace, err)
	}
	<-served // http.ErrServerClosed
	return shutdownErr
}

// Server is the HTTP face of one generator, and of the segment tags of
// a table where tags is not nil.
type Server struct {
	g       Generator
	tags    *Tags
	opaque  *uidgen.Opaque
	auth    *bearer // nil: every request is served
	mux     *http.ServeMux
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

// New returns the Server of cfg's generator and tags.
func New(cfg Config) *Server {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if cfg.Metrics != nil {
		reg.MustRegister(cfg.Metrics)
	}
	gather := prometheus.Gatherers{reg}
	if cfg.Tags != nil {
		// The tags' metrics share names with the generator's, with a tag
		// label: one Registry refuses that, so they have their own.
		gather = append(gather, cfg.Tags.reg)
	}
	s := &Server{g: cfg.Generator, tags: cfg.Tags, opaque: cfg.Opaque, auth: newBearer(cfg.Tokens, cfg.MetricsOpen), metrics: promhttp.HandlerFor(gather, promhttp.HandlerOpts{}), now: time.Now}
	s.bufs.New = func() any { return &idsBuf{ids: make([]int64, MaxIDs)} }
	s.mux = s.routes()
	return s
}

// ServeHTTP answers r on the route its path names, once its token, where
// one is needed, is good: before any route can spend an ID or a number.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.auth != nil && !s.auth.admits(r) {
		unauthorized(w)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/id", onlyGet(s.id))
	mux.Handle("/ids", onlyGet(s.ids))
	mux.Handle("/parse/{uid...}", onlyGet(s.parse))
	mux.Handle("/healthz", onlyGet(s.health))
	mux.Handle("/metrics", onlyGet(s.metrics.ServeHTTP))
	mux.Handle("/segment/{tag}", onlyGet(plainOnly(s.segmentID)))
	mux.Handle("/segment/{tag}/ids", onlyGet(plainOnly(s.segmentIDs)))
	mux.Handle("/segments", onlyGet(s.segments))
	mux.Handle("/serial/{name}", onlyGet(plainOnly(s.serialOne)))
	mux.Handle("/serial/{name}/ids", onlyGet(plainOnly(s.serialIDs)))
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

func (s *Server) id(w http.ResponseWriter, r *http.Request) {
	_, hide, err := s.asked(r.URL.RawQuery, false)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	uid, err := s.g.NextID()
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if hide {
		s.writeOpaque(w, uid)
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

func (s *Server) ids(w http.ResponseWriter, r *http.Request) {
	n, hide, err := s.asked(r.URL.RawQuery, true)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	buf := s.bufs.Get().(*idsBuf)
	defer s.bufs.Put(buf)
	ids := buf.ids[:n]
	if _, err := s.g.NextIDs(ids); err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	text := appendDecimal
	if hide {
		text = s.appendOpaque
	}
	buf.write(w, r, ids, text)
}

// appendID appends the text of an ID, or of a tag's number, to a body.
type appendID func(dst []byte, id int64) ([]byte, error)

// appendDecimal appends id in decimal.
func appendDecimal(dst []byte, id int64) ([]byte, error) { return strconv.AppendInt(dst, id, 10), nil }

// write answers r with ids, a prefix of b.ids, each written by text: a
// JSON array of strings, or one per line where r's Accept header prefers
// text/plain. Where text fails it answers 500 and why.
func (b *idsBuf) write(w http.ResponseWriter, r *http.Request, ids []int64, text appendID) {
	asText := prefersText(r.Header.Get("Accept"))
	out, err := body(b.out[:0], ids, asText, text)
	b.out = out
	switch {
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	case asText:
		w.Header()["Content-Type"] = textPlain
	default:
		w.Header()["Content-Type"] = jsonType
	}
	w.Write(out)
}

// body appends ids, each written by text, to out: one per line where
// asText, else as a JSON array of strings.
func body(out []byte, ids []int64, asText bool, text appendID) ([]byte, error) {
	var err error
	if asText {
		for _, uid := range ids {
			if out, err = text(out, uid); err != nil {
				return out, err
			}
			out = append(out, '\n')
		}
		return out, nil
	}
	out = append(out, '[')
	for i, uid := range ids {
		if i > 0 {
			out = append(out, ',')
		}
		if out, err = text(append(out, '"'), uid); err != nil {
			return out, err
		}
		out = append(out, '"')
	}
	return append(out, "]\n"...), nil
}

// query returns the values of a raw query, nil for none, or an error that
// says what is wrong with it.
func query(rawQuery string) (url.Values, error) {
	if rawQuery == "" {
		return nil, nil
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, fmt.Errorf("bad query %q: %v", rawQuery, err)
	}
	return q, nil
}

// asked returns what the query of /id, or of /ids where withN, asks:
// how many IDs (/ids's n) and whether hidden (opaque), or an error that
// says what is wrong with it.
func (s *Server) asked(rawQuery string, withN bool) (n int, hide bool, err error) {
	q, err := query(rawQuery)
	if err == nil && withN {
		n, err = countWanted(q)
	}
	if err == nil {
		hide, err = s.hiding(q)
	}
	return n, hide, err
}

// idsWanted returns the n of a query for numbers, as /ids's, or an error
// that says what is wrong with it.
func idsWanted(rawQuery string) (int, error) {
	q, err := query(rawQuery)
	if err != nil {
		return 0, err
	}
	return countWanted(q)
}

// countWanted returns the n of a /ids query's values, or an error that
// says what is wrong with it.
func countWanted(q url.Values) (int, error) {
	switch ns := q["n"]; {
	case len(ns) == 0:
		return 0, fmt.Errorf("no n: want /ids?n=N with N from 1 to %d", MaxIDs)
	case len(ns) > 1:
		return 0, fmt.Errorf("n given %d times (%s): want it once, from 1 to %d", len(ns), strings.Join(ns, ", "), MaxIDs)
	default:
		n, err := strconv.Atoi(ns[0])
		if err != nil {
			return 0, fmt.Errorf("n %q is not a whole number: want 1 to %d", ns[0], MaxIDs)
		}
		if n < 1 || n > MaxIDs {
			return 0, fmt.Errorf("n %d is out of range: want 1 to %d", n, MaxIDs)
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

func (s *Server) parse(w http.ResponseWriter, r *http.Request) {
	raw := r.PathValue("uid")
	if raw == "" {
		writeError(w, http.StatusBadRequest, "no ID to parse: want /parse/{uid}, uid a 64-bit integer")
		return
	}
	// Read as `uidgen parse` reads its arguments, so that both refuse the
	// same text (a negative number among it) in the same words.
	uid, err := uidgen.Decimal.Parse(raw)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.g.Layout().Parse(uid))
}

// health takes an ID and throws it away: the surest sign that IDs can be
// had, whatever stands in the way (a spent layout, a lost lease, a
// reservation run out).
func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	if _, err := s.g.NextID(); err != nil {
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
