package serve

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// chromeAccept is the Accept header Chromium sends for a page.
const chromeAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8," +
	"application/signed-exchange;v=b3;q=0.7"

// counter is a Generator of the test's own: IDs 1, 2, 3, ... of worker
// ID 3 in the default layout, and how many it handed out.
type counter struct{ taken atomic.Int64 }

func (c *counter) NextID() (int64, error) { return c.taken.Add(1), nil }

func (c *counter) NextIDs(dst []int64) (int, error) {
	for i := range dst {
		dst[i] = c.taken.Add(1)
	}
	return len(dst), nil
}

func (c *counter) WorkerID() int64       { return 3 }
func (c *counter) Layout() uidgen.Layout { return uidgen.DefaultLayout() }
func (c *counter) Stats() Stats          { return Stats{Taken: c.taken.Load()} }

// TestStatusRate: the page's IDs a second are the IDs handed out between
// two loads at least minRateWindow apart, over the time between them, and
// the page says which window.
func TestStatusRate(t *testing.T) {
	g := new(counter)
	s := New(Config{Generator: g})
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := start
	s.now = func() time.Time { return now }
	page := func() string {
		t.Helper()
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Set("Accept", "text/html")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != 200 {
			t.Fatalf("GET /: %d %s", w.Code, w.Body)
		}
		return w.Body.String()
	}
	take := func(n int) {
		t.Helper()
		if _, err := g.NextIDs(make([]int64, n)); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name  string
		after time.Duration // since the last step
		take  int           // IDs taken before the load
		want  string
	}{
		{"first load", 0, 0, `id="rate">from the next load on`},
		{"too soon to measure", 500 * time.Millisecond, 1000, `id="rate">from the next load on`},
		{"two seconds after the first", 1500 * time.Millisecond, 1000, `id="rate">1,000, over the 2s to 2026-03-01 12:00:02 UTC`},
		{"too soon: the rate before", 200 * time.Millisecond, 5000, `id="rate">1,000, over the 2s to 2026-03-01 12:00:02 UTC`},
		{"a slow second", 800 * time.Millisecond, 2, `id="rate">5,002, over the 1s to 2026-03-01 12:00:03 UTC`},
		{"idle", 10 * time.Second, 0, `id="rate">0.0, over the 10s to 2026-03-01 12:00:13 UTC`},
	}
	for _, st := range steps {
		now = now.Add(st.after)
		take(st.take)
		if body := page(); !strings.Contains(body, st.want) {
			t.Errorf("%s: no %q in the page:\n%s", st.name, st.want, body)
		}
	}
}

// TestPrefersHTML: a browser gets the page, a client that asks for JSON
// or for anything gets JSON.
func TestPrefersHTML(t *testing.T) {
	for accept, want := range map[string]bool{
		"":                                  false,
		chromeAccept:                        true,
		"text/html":                         true,
		"text/*":                            true,
		"application/json":                  false,
		"*/*":                               false,
		"text/html, application/json":       false, // a tie goes to JSON
		"text/html;q=0.9, application/json": false,
		"application/json;q=0.9, text/html": true,
		"text/plain":                        false,
	} {
		if got := prefersHTML(accept); got != want {
			t.Errorf("prefersHTML(%q) = %v, want %v", accept, got, want)
		}
	}
}

// TestStatusPageEscapes: what the page shows from outside (a tag, a
// database's error) is escaped, never markup.
func TestStatusPageEscapes(t *testing.T) {
	const evil = `<script>alert("x")</script>`
	var body bytes.Buffer
	err := statusTemplate.Execute(&body, statusPage{
		Refresh: statusRefresh, Layout: evil,
		Tags: &tagsStatus{Table: evil, ReadErr: evil, Tags: []tagRow{{Tag: evil}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body.String(), "<script") {
		t.Fatalf("the page holds markup from outside:\n%s", body.String())
	}
	if n := strings.Count(body.String(), "&lt;script&gt;"); n < 4 {
		t.Errorf("the page shows the outside text escaped %d times, want 4 or more:\n%s", n, body.String())
	}
}

// fixed is a counter whose Stats are the test's.
type fixed struct {
	counter
	stats Stats
}

func (f *fixed) Stats() Stats { return f.stats }

// TestStatusMaxAhead: the page says how far ahead of the clock the
// generator may borrow, and what that costs: none for a generator without
// a ring (the default one, which waits for the next tick), the bound and
// the time waited for the clock under it, or that there is none.
func TestStatusMaxAhead(t *testing.T) {
	for _, tt := range []struct {
		name  string
		stats Stats
		want  string
	}{
		{"default generator", Stats{}, `<td id="max-ahead">none needed: the default generator never borrows; past 8,192 IDs a second its takes wait for the next tick</td>`},
		{"bounded", Stats{RingSize: 65536, MaxAhead: time.Second, ClockWait: 2500 * time.Millisecond},
			`<td id="max-ahead">at most 1s ahead (-max-ahead): past 8,192 IDs a second takes wait for the clock rather than borrow further; it has waited 2.5s for the clock</td>`},
		{"unbounded", Stats{RingSize: 65536},
			`<td id="max-ahead">none: under load the IDs' time runs as far ahead of the clock as the load drives it; -max-ahead bounds it</td>`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Config{Generator: &fixed{stats: tt.stats}})
			req := httptest.NewRequest("GET", "/", nil)
			req.Header.Set("Accept", "text/html")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			if body := w.Body.String(); w.Code != 200 || !strings.Contains(body, tt.want) {
				t.Errorf("GET /: %d, no %q in\n%s", w.Code, tt.want, body)
			}
		})
	}
}

// TestStatusReserved: the page shows Lease.Reserved, the last second
// reserved, and the horizon left runs to the end of that second, 1s past
// it; none once the clock has passed it.
func TestStatusReserved(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		reserved time.Time
		want     string
	}{
		{"ahead", now.Add(10 * time.Second), `<td>11s: how long IDs can still be made`},
		{"this second", now, `<td>1s: how long IDs can still be made`},
		{"spent", now.Add(-time.Second), `<span class="bad">none</span>: the reservation is spent`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Config{Generator: &fixed{stats: Stats{Lease: uidgen.LeaseStats{Leased: true, Reserved: tt.reserved}}}})
			s.now = func() time.Time { return now }
			req := httptest.NewRequest("GET", "/", nil)
			req.Header.Set("Accept", "text/html")
			w := httptest.NewRecorder()
			s.ServeHTTP(w, req)
			body := w.Body.String()
			reserved := "<td>up to and including the second " + tt.reserved.Format("2006-01-02 15:04:05 UTC") + "</td>"
			if w.Code != 200 || !strings.Contains(body, reserved) || !strings.Contains(body, tt.want) {
				t.Errorf("GET /: %d, want %q and %q in\n%s", w.Code, reserved, tt.want, body)
			}
		})
	}
}
