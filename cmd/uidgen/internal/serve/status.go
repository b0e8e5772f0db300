package serve

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/seed4d941b13/uidgen/cmd/uidgen/internal/human"
	"github.com/seed4d941b13/uidgen/segment"
)

// statusRefresh is how often, in seconds, the status page reloads itself
// (its <meta http-equiv="refresh">).
const statusRefresh = 5

// minRateWindow is the shortest span the status page measures IDs a
// second over: a load sooner after the last one shows the rate measured
// then, so that two people's loads a moment apart do not measure noise.
const minRateWindow = time.Second

// tagReadTimeout bounds the status page's read of the tag table, so that
// a database that hangs leaves the rest of the page readable.
const tagReadTimeout = 2 * time.Second

//go:embed status.html
var statusHTML string

var statusTemplate = template.Must(template.New("status").Funcs(template.FuncMap{
	"group": human.Group, "when": when, "span": span, "perSecond": perSecond,
}).Parse(statusHTML))

// idRate measures IDs a second as the difference of the IDs handed out
// between two loads of the status page, by anyone, at least minRateWindow
// apart: serve keeps no sampler of its own, and the page says which
// window its rate is of.
// An idRate must not be copied.
type idRate struct {
	mu    sync.Mutex // guards the fields below; measure holds it throughout
	at    time.Time  // the load the next rate counts from; zero before the first
	taken int64      // IDs handed out at at
	last  rateSpan   // the rate measured last; zero Window before the second load
}

// rateSpan is a rate of IDs a second over Window, up to End.
type rateSpan struct {
	PerSecond float64
	Window    time.Duration
	End       time.Time
}

// measure records a load at now, when taken IDs had been handed out, and
// returns the latest rate.
func (r *idRate) measure(now time.Time, taken int64) rateSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at.IsZero() {
		r.at, r.taken = now, taken
		return r.last
	}
	if d := now.Sub(r.at); d >= minRateWindow {
		r.last = rateSpan{PerSecond: float64(taken-r.taken) / d.Seconds(), Window: d, End: now}
		r.at, r.taken = now, taken
	}
	return r.last
}

// statusPage is what the status page shows.
type statusPage struct {
	Refresh     int // seconds between reloads
	Now         time.Time
	WorkerID    int64
	Stats                     // the generator's; Ahead below shadows its Ahead
	HorizonLeft time.Duration // from Now to the end of Lease.Reserved, its last second; 0 once past
	Layout      string        // the widths, as "1+30+20+13 bits (sign+time+worker+sequence)"
	Epoch       time.Time
	RunsOut     time.Time
	YearsLeft   float64 // from Now to RunsOut, in years of 365.25 days
	Rate        rateSpan
	Ahead       string         // human.Ahead of Stats.Ahead
	TickRate    int64          // the most IDs a second the layout's sequence holds: 2^SeqBits a tick
	Tags        *tagsStatus    // nil without -dsn
	Serials     *serialsStatus // nil without -serial
}

// tagsStatus is the status page's table of the tags served.
type tagsStatus struct {
	Table   string
	MaxTags int
	Tags    []tagRow // the tags open now, by name
	ReadErr string   // why the table's columns are missing, if they are
}

// tagRow is one tag served: its generator's view, as /segments gives
// it, and its row in the table, as Leaf's /db page shows it.
type tagRow struct {
	Tag string
	tagView
	Row *segment.Row // nil where the table has no row for the tag, or could not be read
}

// root answers GET / with the status page where the Accept header prefers
// text/html (a browser), and any other client (curl) with an index as
// JSON: the worker ID, the layout and the routes. Other methods get 405.
func (s *Server) root(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Vary", "Accept")
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s: use GET", r.Method, r.URL.Path))
		return
	}
	if !prefersHTML(r.Header.Get("Accept")) {
		writeJSON(w, http.StatusOK, index{WorkerID: strconv.FormatInt(s.g.WorkerID(), 10), Layout: s.g.Layout().Bits().String(), Routes: routeList})
		return
	}
	var body bytes.Buffer
	if err := statusTemplate.Execute(&body, s.status(r.Context())); err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("the status page: %v", err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(body.Bytes())
}

// index is what GET / answers a client that is not a browser.
type index struct {
	WorkerID string   `json:"worker_id"`
	Layout   string   `json:"layout"`
	Routes   []string `json:"routes"`
}

// routeList names serve's routes, for the index and for a 404.
var routeList = []string{"GET /id", "GET /ids?n=N", "GET /parse/{uid}", "GET /healthz", "GET /metrics",
	"GET /segment/{tag}", "GET /segment/{tag}/ids?n=N", "GET /segments", "GET /serial/{name}", "GET /serial/{name}/ids?n=N",
	"GET / (a status page for a browser)"}

// prefersHTML reports whether an Accept header rates text/html above
// application/json, as a browser's does. A tie, and no header, go to JSON.
func prefersHTML(accept string) bool {
	return accept != "" && quality(accept, "text", "html") > quality(accept, "application", "json")
}

// status reads the page's values: the generator's Stats, and where tags
// are served, each open tag's view and row.
func (s *Server) status(ctx context.Context) statusPage {
	now := s.now()
	st := s.g.Stats()
	layout := s.g.Layout()
	p := statusPage{
		Refresh: statusRefresh, Now: now, WorkerID: s.g.WorkerID(), Stats: st,
		Layout: layout.Bits().String(), Epoch: layout.Epoch(), RunsOut: layout.RunsOut(),
		YearsLeft: max(0, layout.RunsOut().Sub(now).Hours()/24/365.25),
		Rate:      s.rate.measure(now, st.Taken),
		Ahead:     human.Ahead(st.Ahead),
		TickRate:  (layout.Bits().MaxSequence() + 1) * int64(time.Second/layout.Tick()),
	}
	if st.Lease.Leased {
		p.HorizonLeft = max(0, st.Lease.Reserved.Add(time.Second).Sub(now))
	}
	if s.tags != nil {
		p.Tags = s.tags.status(ctx)
		if s.tags.serials != nil {
			p.Serials = s.tags.serials.status(now)
		}
	}
	return p
}

// status returns the tags open now, with their rows where the table can
// be read within tagReadTimeout. Only tags served appear, never the
// table's other rows.
func (s *Tags) status(ctx context.Context) *tagsStatus {
	views := s.views()
	ts := &tagsStatus{Table: s.base.Table, MaxTags: s.maxTags, Tags: make([]tagRow, 0, len(views))}
	for _, tag := range slices.Sorted(maps.Keys(views)) {
		ts.Tags = append(ts.Tags, tagRow{Tag: tag, tagView: views[tag]})
	}
	if len(ts.Tags) == 0 {
		return ts
	}
	ctx, cancel := context.WithTimeout(ctx, tagReadTimeout)
	defer cancel()
	rows, err := segment.List(ctx, segment.Config{DB: s.base.DB, Table: s.base.Table})
	if err != nil {
		ts.ReadErr = err.Error()
		return ts
	}
	for i := range ts.Tags {
		j := slices.IndexFunc(rows, func(r segment.Row) bool { return r.Tag == ts.Tags[i].Tag })
		if j >= 0 {
			ts.Tags[i].Row = &rows[j]
		}
	}
	return ts
}

// when formats t for the page, in UTC to the second; "never" for zero.
func when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// span formats d for the page, to the second, or to the tenth under a
// minute.
func span(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// perSecond formats a rate for the page: to the tenth below 10, else
// whole and grouped.
func perSecond(f float64) string {
	if f < 10 {
		return fmt.Sprintf("%.1f", f)
	}
	return human.Group(int64(math.Round(f)))
}
