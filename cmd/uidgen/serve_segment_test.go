package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/cmd/uidgen/internal/serve"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/defaults"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/internal/redistest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
	"github.com/seed4d941b13/uidgen/segment"
)

// servedTags is the tags the segment serve tests hand out under load.
var servedTags = []string{"order", "invoice", "user.id"}

// tagTable is a tag table of the test's own on s, with a row for each of
// steps' tags, made at 1 with its step.
type tagTable struct {
	s     dbtest.Server
	db    *sql.DB
	name  string
	steps map[string]int64
}

func newTagTable(t *testing.T, s dbtest.Server, steps map[string]int64) *tagTable {
	t.Helper()
	db := s.Open(t)
	tt := &tagTable{s: s, db: db, name: dbtest.Table(t, db, "leaf_alloc_"), steps: steps}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := segment.EnsureSchema(ctx, segment.Config{DB: db, Table: tt.name}); err != nil {
		t.Fatal(err)
	}
	for tag, step := range steps {
		// New makes the row and claims a range; Close gives it back.
		g, err := segment.New(ctx, segment.Config{DB: db, Table: tt.name, Tag: tag, Step: step})
		if err == nil {
			err = g.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return tt
}

// args are serve's flags for the table, and a worker table of the test's
// own for the ID generator's worker ID.
func (tt *tagTable) args(t *testing.T, extra ...string) []string {
	return append([]string{"-dsn", tt.s.DSN, "-segment-table", tt.name, "-table", dbtest.Table(t, tt.db, "WORKER_NODE_")}, extra...)
}

func (tt *tagTable) rows(t *testing.T) int {
	t.Helper()
	var n int
	if err := tt.db.QueryRow("SELECT COUNT(*) FROM " + tt.name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// next is the tag's max_id: the first number of its next range.
func (tt *tagTable) next(t *testing.T, tag string) int64 {
	t.Helper()
	var n int64
	if err := tt.db.QueryRow(tt.s.Dialect().Rebind("SELECT max_id FROM "+tt.name+" WHERE biz_tag = ?"), tag).Scan(&n); err != nil {
		t.Fatalf("max_id of %s: %v", tag, err)
	}
	return n
}

// loadTags has clients clients at once, behind a gate, ask for batches of
// batch numbers of every tag in turn, perClient numbers of each, from
// /segment/{tag}/ids, half of them as text. It returns each client's
// numbers by tag.
func loadTags(t *testing.T, s *server, tags []string, clients, perClient, batch int) []map[string][]int64 {
	t.Helper()
	got := make([]map[string][]int64, clients)
	errs := make([]error, clients)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := range clients {
		got[i] = make(map[string][]int64)
		wg.Go(func() {
			<-gate
			for j := range perClient / batch {
				for _, tag := range tags {
					accept := "application/json"
					if (i+j)%2 == 0 {
						accept = "text/plain"
					}
					ids, err := takeBatch(s, tag, batch, accept)
					if err != nil {
						errs[i] = err
						return
					}
					got[i][tag] = append(got[i][tag], ids...)
				}
			}
		})
	}
	close(gate)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return got
}

// takeBatch asks for n numbers of tag.
func takeBatch(s *server, tag string, n int, accept string) ([]int64, error) {
	path := fmt.Sprintf("/segment/%s/ids?n=%d", tag, n)
	r, err := s.try("GET", path, "Accept", accept)
	if err != nil {
		return nil, err
	}
	if r.status != 200 {
		return nil, fmt.Errorf("GET %s: %d %s", path, r.status, r.body)
	}
	ids, err := r.ids()
	if err == nil && len(ids) != n {
		err = fmt.Errorf("GET %s: %d numbers", path, len(ids))
	}
	return ids, err
}

// checkTags fails t unless each client's numbers of each tag increase and
// no number of a tag was handed out twice. It returns each tag's highest.
func checkTags(t *testing.T, got []map[string][]int64) map[string]int64 {
	t.Helper()
	high := make(map[string]int64)
	byTag := make(map[string][][]int64)
	for i, c := range got {
		for tag, ids := range c {
			checkIncreasing(t, fmt.Sprintf("client %d, tag %s", i, tag), ids)
			byTag[tag] = append(byTag[tag], ids)
			if len(ids) > 0 {
				high[tag] = max(high[tag], ids[len(ids)-1])
			}
		}
	}
	for tag, lists := range byTag {
		n := fleettest.CheckUnique(t, number, lists...)
		t.Logf("tag %s: %d numbers from %d clients, all unique, each client's increasing", tag, n, len(lists))
	}
	return high
}

// leafBody is leaf-server's error body.
type leafBody struct {
	Timestamp int64
	Status    int
	Error     string
	Exception string
	Message   string
	Path      string
}

// checkLeafError fails t unless r is leaf-server's answer to a
// LeafServerException with message want, on path.
func checkLeafError(t *testing.T, r reply, path, want string) {
	t.Helper()
	checkLeafAnswer(t, r, path, http.StatusInternalServerError, want)
}

// checkLeafAnswer fails t unless r is status with Spring Boot's body of a
// LeafServerException with message want, on path.
func checkLeafAnswer(t *testing.T, r reply, path string, status int, want string) {
	t.Helper()
	var b leafBody
	err := json.Unmarshal([]byte(r.body), &b)
	if r.status != status || r.header.Get("Content-Type") != "application/json;charset=UTF-8" || err != nil ||
		b.Status != status || b.Error != http.StatusText(status) || b.Exception != leafException || b.Message != want || b.Path != path ||
		time.Since(time.UnixMilli(b.Timestamp)).Abs() > time.Minute {
		t.Fatalf("%s: %d %s %s (%v), want leaf-server's %d with message %q", path, r.status, r.header.Get("Content-Type"), r.body, err, status, want)
	}
	// The fields in the order Spring Boot writes them.
	if !regexp.MustCompile(`^\{"timestamp":\d+,"status":\d+,"error":"[^"]*","exception":"[^"]*","message":"(?:[^"\\]|\\.)*","path":"[^"]*"\}$`).MatchString(r.body) {
		t.Errorf("%s: body %s, not in Spring Boot's field order", path, r.body)
	}
}

// leafNumber fails t unless r is leaf-server's answer of a number, and
// returns it.
func leafNumber(t *testing.T, r reply, path string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(r.body, 10, 64)
	if r.status != 200 || r.header.Get("Content-Type") != "text/plain;charset=UTF-8" || err != nil {
		t.Fatalf("%s: %d %s %q (%v), want 200 and a number as text/plain, with no newline", path, r.status, r.header.Get("Content-Type"), r.body, err)
	}
	return n
}

// TestServeSegmentTags: over HTTP, 8 clients at once take numbers of three
// tags: all unique, each client's increasing. Leaf's route answers as
// leaf-server does for a known tag, an unknown one and a failing one (its
// row deleted under the server); a tag not in the table is refused and no
// row is written; a tag past -max-tags is refused.
func TestServeSegmentTags(t *testing.T) {
	const clients, batch = 8, 500
	perClient := sizetest.Pick(50_000, 5_000)
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		steps := map[string]int64{"gone": 100, "extra": 100}
		for _, tag := range servedTags {
			steps[tag] = 1000
		}
		tt := newTagTable(t, s, steps)
		srv := startServer(t, tt.args(t, "-max-tags", "4")...)

		start := time.Now()
		high := checkTags(t, loadTags(t, srv, servedTags, clients, perClient, batch))
		t.Logf("%d clients × %d numbers of %d tags in %v", clients, perClient, len(servedTags), time.Since(start).Round(time.Millisecond))

		for _, tag := range servedTags {
			path := "/api/segment/get/" + tag
			if n := leafNumber(t, srv.do(t, "GET", path), path); n <= high[tag] {
				t.Errorf("%s: %d after %d", path, n, high[tag])
			}
			one := srv.do(t, "GET", "/segment/"+tag)
			if one.status != 200 || one.header.Get("Content-Type") != "text/plain; charset=utf-8" || !strings.HasSuffix(one.body, "\n") {
				t.Errorf("GET /segment/%s: %d %s %q, want a number as text", tag, one.status, one.header.Get("Content-Type"), one.body)
			}
		}
		taken := int64(clients*perClient + 2) // and one from each route of one number
		for _, tag := range servedTags {
			if got := srv.metric(t, `uidgen_ids_total{tag="`+tag+`"}`); got != float64(taken) {
				t.Errorf("uidgen_ids_total of %s: %v, want %v", tag, got, taken)
			}
		}

		t.Run("unknown", func(t *testing.T) {
			before := tt.rows(t)
			for _, tag := range []string{"nosuch", "no%20such", strings.Repeat("x", 200)} {
				checkLeafError(t, srv.do(t, "GET", "/api/segment/get/"+tag), "/api/segment/get/"+tag, leafNoKey)
				checkLeafError(t, srv.do(t, "POST", "/api/segment/get/"+tag), "/api/segment/get/"+tag, leafNoKey)
				if r := srv.do(t, "GET", "/segment/"+tag+"/ids?n=3"); r.status != 404 || !strings.Contains(r.body, "unknown tag") ||
					!strings.Contains(r.body, "-create-tags") {
					t.Errorf("GET /segment/%s/ids: %d %s, want 404 and unknown tag", tag, r.status, r.body)
				}
			}
			if after := tt.rows(t); after != before {
				t.Fatalf("%d rows after asking for unknown tags, %d before", after, before)
			}
		})

		t.Run("gone", func(t *testing.T) {
			// The fourth tag is served, then its row deleted: once the
			// range in hand is spent, its takes fail.
			leafNumber(t, srv.do(t, "GET", "/api/segment/get/gone"), "/api/segment/get/gone")
			s.Exec(t, tt.db, "DELETE FROM "+tt.name+" WHERE biz_tag = ?", "gone")
			var last reply
			for range 20 {
				if last = srv.do(t, "GET", "/segment/gone/ids?n=100"); last.status != 200 {
					break
				}
			}
			if last.status != 503 || !strings.Contains(last.body, "gone") {
				t.Fatalf("GET /segment/gone/ids after the row was deleted: %d %s, want 503 and why", last.status, last.body)
			}
			checkLeafError(t, srv.do(t, "GET", "/api/segment/get/gone"), "/api/segment/get/gone", leafFailed)
		})

		t.Run("max-tags", func(t *testing.T) {
			if r := srv.do(t, "GET", "/segment/extra"); r.status != 503 || !strings.Contains(r.body, "-max-tags is 4") {
				t.Errorf("GET /segment/extra, a fifth tag: %d %s, want 503 and -max-tags", r.status, r.body)
			}
			checkLeafError(t, srv.do(t, "GET", "/api/segment/get/extra"), "/api/segment/get/extra", leafFailed)
		})

		t.Run("monitor", func(t *testing.T) {
			r := srv.do(t, "GET", "/segments")
			var page struct {
				Table   string
				MaxTags int `json:"max_tags"`
				Tags    map[string]struct {
					RingSize      int64     `json:"ring_size"`
					RingAvailable int64     `json:"ring_available"`
					Held          int64     `json:"held"`
					Taken         int64     `json:"taken"`
					Claims        int64     `json:"claims"`
					LastClaim     time.Time `json:"last_claim"`
				}
			}
			if err := json.Unmarshal([]byte(r.body), &page); r.status != 200 || err != nil || page.Table != tt.name || page.MaxTags != 4 {
				t.Fatalf("GET /segments: %d %s (%v)", r.status, r.body, err)
			}
			names := slices.Sorted(maps.Keys(page.Tags))
			if want := []string{"gone", "invoice", "order", "user.id"}; !slices.Equal(names, want) {
				t.Fatalf("GET /segments shows tags %v, want %v", names, want)
			}
			for _, tag := range servedTags {
				v := page.Tags[tag]
				if v.RingSize != defaults.SegmentRingSize || v.Taken != taken || v.Claims < 1 || v.Held < v.RingAvailable || v.LastClaim.IsZero() {
					t.Errorf("GET /segments, tag %s: %+v", tag, v)
				}
			}
		})
		srv.stop(t, syscall.SIGTERM)
	})
}

// TestServeSegmentCreateTags: with -create-tags a tag not in the table is
// made at its first request, and a tag no table can hold is refused.
func TestServeSegmentCreateTags(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		tt := newTagTable(t, s, map[string]int64{"order": 1000})
		srv := startServer(t, tt.args(t, "-create-tags")...)
		if r := srv.do(t, "GET", "/segment/fresh"); r.status != 200 || r.body != "1\n" {
			t.Fatalf("GET /segment/fresh: %d %q, want 200 and 1, the first number of a tag made now", r.status, r.body)
		}
		if n := tt.rows(t); n != 2 {
			t.Fatalf("%d rows after serving a new tag, want 2", n)
		}
		if r := srv.do(t, "GET", "/segment/no%20such"); r.status != 400 || !strings.Contains(r.body, "bad tag") {
			t.Errorf("GET /segment/no%%20such: %d %s, want 400 and bad tag", r.status, r.body)
		}
		checkLeafError(t, srv.do(t, "GET", "/api/segment/get/no%20such"), "/api/segment/get/no%20such", leafNoKey)
		srv.stop(t, syscall.SIGTERM)
		if n := tt.next(t, "fresh"); n != 2 {
			t.Errorf("max_id of fresh after serve stopped: %d, want 2", n)
		}
	})
}

// TestServeSegmentShutdown: SIGTERM while 8 clients take numbers of three
// tags: the requests in flight are answered in full, the process exits 0,
// and each tag's max_id is then the number after the last handed out: its
// generator gave back all it held. Where no request was in flight at the
// signal (the clients all between requests, on a loaded machine), the
// checks hold but say nothing of one, so the test runs again, up to five
// times.
func TestServeSegmentShutdown(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		for attempt := 1; ; attempt++ {
			late := shutdownWhileTaking(t, s)
			if late > 0 || t.Failed() {
				return
			}
			if attempt == 5 {
				t.Errorf("in %d runs no client had an answer after SIGTERM: no request was in flight", attempt)
				return
			}
			t.Logf("run %d: no request was in flight at SIGTERM; again", attempt)
		}
	})
}

// shutdownWhileTaking is one run of TestServeSegmentShutdown on s: it
// returns how many clients had their last answer after SIGTERM.
func shutdownWhileTaking(t *testing.T, s dbtest.Server) (late int) {
	t.Helper()
	const clients, batch = 8, 500
	warm := sizetest.Pick(20, 5) // requests per client before the signal
	steps := make(map[string]int64)
	for _, tag := range servedTags {
		steps[tag] = 1000
	}
	tt := newTagTable(t, s, steps)
	srv := startServer(t, tt.args(t)...)

	got := make([]map[string][]int64, clients)
	answered := make([]time.Time, clients) // when each client's last answer came
	errs := make([]error, clients)
	warmed := make(chan struct{}, clients)
	var wg sync.WaitGroup
	for i := range clients {
		got[i] = make(map[string][]int64)
		wg.Go(func() {
			for j := 0; ; j++ {
				if j == warm {
					warmed <- struct{}{}
				}
				tag := servedTags[(i+j)%len(servedTags)]
				path := fmt.Sprintf("/segment/%s/ids?n=%d", tag, batch)
				r, err := srv.try("GET", path)
				if err != nil {
					// The requests the server does not run: refused once
					// the listener is closed, reset where the kernel had
					// queued the connection and the server never accepted
					// it, and EOF where net/http read the request after
					// Shutdown began and closed the connection instead of
					// running it (conn.serve returns once shuttingDown).
					if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) {
						errs[i] = err
					}
					return
				}
				var ids []int64
				if r.status == 200 {
					ids, err = r.ids()
				}
				if r.status != 200 || err != nil || len(ids) != batch {
					errs[i] = fmt.Errorf("GET %s: %d %.200s, %d numbers (%v)", path, r.status, r.body, len(ids), err)
					return
				}
				got[i][tag] = append(got[i][tag], ids...)
				answered[i] = time.Now()
			}
		})
	}
	for range clients {
		<-warmed
	}
	signalled := time.Now()
	srv.stop(t, syscall.SIGTERM)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, at := range answered {
		if at.After(signalled) {
			late++
		}
	}
	t.Logf("%d of %d clients had their last answer after SIGTERM", late, clients)
	for tag, high := range checkTags(t, got) {
		if next := tt.next(t, tag); next != high+1 {
			t.Errorf("tag %s: max_id %d after serve stopped, want %d: the last number handed out was %d", tag, next, high+1, high)
		}
	}
	if !strings.Contains(srv.stderr.String(), "uidgen serve: stopped") {
		t.Errorf("stderr does not say it stopped:\n%s", srv.stderr)
	}
	return late
}

// TestServeSegmentOff: with the worker ID leased from Redis, which keeps no
// tag table, the segment routes say that segment mode is off, and Leaf's
// route answers as leaf-server's failure.
func TestServeSegmentOff(t *testing.T) {
	srv := startServer(t, "-redis", redistest.Start(t).URL())
	for _, path := range []string{"/segment/order", "/segment/order/ids?n=3", "/segments"} {
		if r := srv.do(t, "GET", path); r.status != 501 || !strings.Contains(r.body, "segment mode is off") {
			t.Errorf("GET %s: %d %s, want 501 and segment mode is off", path, r.status, r.body)
		}
	}
	checkLeafError(t, srv.do(t, "GET", "/api/segment/get/order"), "/api/segment/get/order", serve.ErrSegmentOff.Error())
	leafNumber(t, srv.do(t, "GET", "/api/snowflake/get/anything"), "/api/snowflake/get/anything")
	srv.stop(t, syscall.SIGTERM)
}

// waiting returns the tag's runs of numbers given back, which wait to be
// handed out again, in order.
func (tt *tagTable) waiting(t *testing.T, tag string) []numberRun {
	t.Helper()
	rows, err := tt.db.Query(tt.s.Dialect().Rebind("SELECT start_id, end_id FROM "+tt.name+"_returned WHERE biz_tag = ? ORDER BY start_id"), tag)
	if err != nil {
		t.Fatalf("numbers of %s given back: %v", tag, err)
	}
	defer rows.Close()
	var runs []numberRun
	for rows.Next() {
		var r numberRun
		if err := rows.Scan(&r.start, &r.end); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return runs
}

// settled returns the tag's runs waiting and max_id once two reads 50 ms
// apart agree: a statement a killed process sent last may still be running
// on the server after the process is gone.
func (tt *tagTable) settled(t *testing.T, tag string) ([]numberRun, int64) {
	t.Helper()
	waiting, next := tt.waiting(t, tag), tt.next(t, tag)
	for deadline := time.Now().Add(10 * time.Second); ; {
		time.Sleep(50 * time.Millisecond)
		w, n := tt.waiting(t, tag), tt.next(t, tag)
		if n == next && slices.Equal(w, waiting) {
			return waiting, next
		}
		if time.Now().After(deadline) {
			t.Fatalf("the numbers of tag %s still move 10 s after the last process ended", tag)
		}
		waiting, next = w, n
	}
}
