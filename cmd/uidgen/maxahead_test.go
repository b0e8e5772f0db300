package main

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
)

// clockSlack is how far two processes' readings of the clock may differ
// beyond what the bounds under test allow: the command's clock is anchored
// to Go's monotonic clock at its start, the test reads the wall clock, and
// a slewed wall clock drifts from the anchor by milliseconds.
const clockSlack = 100 * time.Millisecond

// flatOut has goroutines ask the server for paths[i % len(paths)] (the
// i-th goroutine's) over and over, behind a gate, until loadFor has passed
// or each has asked maxRequests times, and calls check, from the
// goroutine, with each reply of status 200 and when it was sent and
// received. The first error of each goroutine, the reply's or check's,
// stops it and fails t.
func flatOut(t *testing.T, s *server, paths []string, goroutines, maxRequests int, loadFor time.Duration,
	check func(path string, r reply, sent, received time.Time) error) {
	t.Helper()
	errs := make([]error, goroutines)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := range goroutines {
		path := paths[i%len(paths)]
		wg.Go(func() {
			<-gate
			end := time.Now().Add(loadFor)
			for range maxRequests {
				sent := time.Now()
				if sent.After(end) {
					return
				}
				r, err := s.try("GET", path, "Accept", "text/plain")
				received := time.Now()
				if err == nil && r.status != 200 {
					err = fmt.Errorf("GET %s: %d %s", path, r.status, r.body)
				}
				if err == nil {
					err = check(path, r, sent, received)
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	close(gate)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// TestServeMaxAhead: serve -max-ahead 2s under flat-out load, far above the
// 8,192 IDs a second the default layout makes without borrowing, hands out
// no ID whose time is more than 2 s past the clock when it is received;
// its Stats (at /metrics) say it is at most 2 s ahead and has waited for
// the clock, and its status page shows the bound and the wait.
func TestServeMaxAhead(t *testing.T) {
	const bound = 2 * time.Second
	s := startServer(t, "-worker", "3", "-max-ahead", bound.String())
	layout := uidgen.DefaultLayout()
	var taken atomic.Int64
	flatOut(t, s, []string{"/ids?n=2000"}, 4, 1000, 5*time.Second, func(_ string, r reply, _, received time.Time) error {
		ids, err := r.ids()
		if err != nil {
			return err
		}
		for _, id := range ids {
			if ahead := layout.Parse(id).Time.Sub(received); ahead > bound+clockSlack {
				return fmt.Errorf("ID %d is %v ahead of the clock when received, past -max-ahead %v", id, ahead, bound)
			}
		}
		taken.Add(int64(len(ids)))
		return nil
	})
	ahead, waited := s.metric(t, "uidgen_ahead_seconds"), s.metric(t, "uidgen_clock_wait_seconds_total")
	t.Logf("%d IDs; ahead %vs, waited %vs for the clock", taken.Load(), ahead, waited)
	if ahead > bound.Seconds() {
		t.Errorf("Stats.Ahead is %vs, past -max-ahead %v", ahead, bound)
	}
	if waited <= 0 {
		t.Errorf("Stats.ClockWait is %vs after %d IDs flat out: the load never reached the bound", waited, taken.Load())
	}
	page := s.do(t, "GET", "/", "Accept", "text/html").body
	if want := `<td id="max-ahead">at most 2s ahead (-max-ahead): past 8,192 IDs a second takes wait for the clock rather than borrow further; it has waited `; !strings.Contains(page, want) {
		t.Errorf("the status page has no %q:\n%s", want, page)
	}
	s.stop(t, syscall.SIGTERM)
}

// TestGenFormatWithinASecond: gen -format flat out, with no -max-ahead,
// prints no serial whose time is more than a second past the clock when
// it is read: a Snowflake serial prints its ID's time, so gen bounds
// borrowing to serialMaxAhead for it. (Unbounded, the last of these IDs is
// about 4 s ahead: a ring of 8 s is filled at the start.)
func TestGenFormatWithinASecond(t *testing.T) {
	isolateDB(t)
	const n = 40_000
	cmd := uidgenCommand(t, "gen", "-tz", "UTC", "-format", "{yyyy}{MM}{dd}{HH}{mm}{ss}-{worker:7}-{seq:4}", "-n", strconv.Itoa(n))
	var stderr fleettest.SyncBuffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines, read := bufio.NewScanner(stdout), 0
	var worst time.Duration
	for lines.Scan() {
		received := time.Now()
		at, err := time.Parse("20060102150405", strings.SplitN(lines.Text(), "-", 2)[0])
		if err != nil {
			t.Fatalf("serial %d, %q: %v", read, lines.Text(), err)
		}
		worst = max(worst, at.Sub(received))
		read++
	}
	if err := cmd.Wait(); err != nil || read != n {
		t.Fatalf("gen: %v, %d serials of %d: %s", err, read, n, &stderr)
	}
	t.Logf("%d serials; the furthest ahead of the clock when read: %v", n, worst)
	if worst > serialMaxAhead+clockSlack {
		t.Errorf("a serial is dated %v past the clock when read, want at most %v", worst, serialMaxAhead)
	}
}

// TestServeSerialDatedByTheClock: serve -serial under flat-out load, on
// its serials and on /ids at once, with no -max-ahead. The IDs borrow
// seconds ahead of the clock; the serials, whose dates are the period the
// clock was in at the take (serial.Segment), never do: each serial's hour
// holds a time within a second of the clock's between sending and
// receipt. The status page says the generator's borrowing is unbounded.
func TestServeSerialDatedByTheClock(t *testing.T) {
	s := startServer(t, "-worker", "3", "-serial", "h=H{yyyy}{MM}{dd}{HH}-{seq:9}", "-tz", "UTC")
	layout := uidgen.DefaultLayout()
	var serials atomic.Int64
	var idsAhead sync.Mutex
	var furthest time.Duration // of the IDs, past the clock when received; guarded by idsAhead
	flatOut(t, s, []string{"/serial/h/ids?n=1000", "/ids?n=10000"}, 4, 1000, 4*time.Second, func(path string, r reply, sent, received time.Time) error {
		if path != "/serial/h/ids?n=1000" {
			ids, err := r.ids()
			if err != nil {
				return err
			}
			idsAhead.Lock()
			defer idsAhead.Unlock()
			furthest = max(furthest, layout.Parse(ids[len(ids)-1]).Time.Sub(received))
			return nil
		}
		for line := range strings.Lines(r.body) {
			hour, err := time.Parse("H2006010215", strings.SplitN(line, "-", 2)[0])
			if err != nil {
				return fmt.Errorf("serial %q: %v", line, err)
			}
			if hour.After(received.Add(time.Second)) || hour.Add(time.Hour).Before(sent.Add(-time.Second)) {
				return fmt.Errorf("serial %q, sent at %v and received at %v: its hour is not within a second of the clock's",
					strings.TrimSpace(line), sent.UTC(), received.UTC())
			}
			serials.Add(1)
		}
		return nil
	})
	t.Logf("%d serials, all of the clock's hour; the IDs beside them up to %v ahead of the clock", serials.Load(), furthest)
	if furthest <= serialMaxAhead {
		t.Errorf("the IDs got no further than %v ahead of the clock: the load never drove the generator ahead", furthest)
	}
	page := s.do(t, "GET", "/", "Accept", "text/html").body
	if want := `<td id="max-ahead">none: under load the IDs' time runs as far ahead of the clock as the load drives it; -max-ahead bounds it</td>`; !strings.Contains(page, want) {
		t.Errorf("the status page has no %q:\n%s", want, page)
	}
	s.stop(t, syscall.SIGTERM)
}

// TestMaxAheadBadCalls: a -max-ahead the cached generator cannot keep is
// its Config's error, and one the default generator has no use for, or
// segment mode, the command's: each exits 2.
func TestMaxAheadBadCalls(t *testing.T) {
	testBadCalls(t, []badCall{
		{[]string{"gen", "-max-ahead", "-1s", "-n", "1"}, "MaxAhead -1s, want 0 (unbounded) or more"},
		{[]string{"gen", "-max-ahead", "500ms", "-n", "1"}, "MaxAhead 500ms is shorter than the layout's tick, 1s"},
		{[]string{"gen", "-layout", "twitter", "-max-ahead", "500us", "-n", "1"}, "MaxAhead 500µs is shorter than the layout's tick, 1ms"},
		{[]string{"serve", "-max-ahead", "10ms"}, "MaxAhead 10ms is shorter than the layout's tick, 1s"},
		{[]string{"gen", "-generator", "default", "-max-ahead", "2s", "-n", "1"}, "-max-ahead with -generator default: only the cached generator borrows"},
		{[]string{"serve", "-generator", "default", "-max-ahead", "2s"}, "-max-ahead with -generator default"},
		{[]string{"gen", "-segment", "order", "-max-ahead", "1s"}, "-max-ahead does not go with -segment"},
	})
}

// TestMaxAheadZeroWithDefault: -max-ahead 0, no bound, is the default, so
// the default generator takes it as it takes no -max-ahead at all.
func TestMaxAheadZeroWithDefault(t *testing.T) {
	code, out, stderr := runCLI(t, "gen", "-generator", "default", "-max-ahead", "0", "-worker", "3", "-n", "1")
	if code != 0 || strings.Count(out, "\n") != 1 {
		t.Errorf("gen -generator default -max-ahead 0: exit %d, stdout %q, stderr %q; want 0 and one ID", code, out, stderr)
	}
}

// TestGenNotesAhead: gen says on stderr how far ahead of the clock its IDs
// ran where they borrowed a minute or more, and says nothing of a few
// seconds. With 8 sequence bits a second holds 256 IDs: 40,000 IDs are
// 156 s of them, which no machine prints slowly enough to catch up with,
// and 2,000 are 8 s.
func TestGenNotesAhead(t *testing.T) {
	for _, tt := range []struct {
		n    string
		note bool
	}{{"40000", true}, {"2000", false}} {
		// Each on a file of its own: a worker ID reserved ahead by the
		// first would start the second ahead.
		t.Run(tt.n, func(t *testing.T) {
			code, out, stderr := runCLI(t, "gen", "-seq-bits", "8", "-worker", "3", "-n", tt.n)
			if code != 0 || strings.Count(out, "\n") != mustAtoi(t, tt.n) {
				t.Fatalf("gen -n %s: exit %d, %d lines, stderr %q", tt.n, code, strings.Count(out, "\n"), stderr)
			}
			if noted := strings.Contains(stderr, "ahead of the clock") && strings.Contains(stderr, "-max-ahead"); noted != tt.note {
				t.Errorf("gen -n %s with 256 IDs a second: stderr %q; want a note of the time borrowed: %v", tt.n, stderr, tt.note)
			}
		})
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
