package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/segment"
)

const (
	scheme2 = "001{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}"
	order   = "ORD-{yyyy}{MM}{dd}-{seq:6}"
)

// TestGenParseFormat: gen -format prints three 28-digit strings of scheme 2
// that parse -format reads back to the IDs, worker 7's.
func TestGenParseFormat(t *testing.T) {
	code, out, stderr := runCLI(t, "gen", "-layout", "twitter", "-worker", "7", "-format", scheme2, "-tz", "UTC", "-n", "3")
	if code != 0 {
		t.Fatalf("gen: exit %d: %s", code, stderr)
	}
	strs := strings.Fields(out)
	digits := regexp.MustCompile(`^001\d{25}$`)
	if len(strs) != 3 {
		t.Fatalf("gen printed %q, want 3 strings", out)
	}
	for i, s := range strs {
		if !digits.MatchString(s) || i > 0 && s <= strs[i-1] {
			t.Fatalf("gen printed %q: want increasing 28-digit strings starting 001", strs)
		}
		if day := time.Now().UTC().Format("20060102"); s[3:11] != day && s[3:11] != time.Now().UTC().Add(-time.Minute).Format("20060102") {
			t.Fatalf("%s is not of today, %s", s, day)
		}
	}
	code, out, stderr = runCLI(t, append([]string{"parse", "-json", "-layout", "twitter", "-tz", "UTC", "-format", scheme2}, strs...)...)
	if code != 0 {
		t.Fatalf("parse: exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("parse printed %q, want 3 lines", out)
	}
	for i, line := range lines {
		var id struct {
			UID      int64     `json:"uid,string"`
			Time     time.Time `json:"time"`
			WorkerID int64     `json:"workerId,string"`
			Sequence int64     `json:"sequence,string"`
		}
		if err := json.Unmarshal([]byte(line), &id); err != nil {
			t.Fatal(err)
		}
		s := strs[i]
		if id.WorkerID != 7 || id.Time.UTC().Format("20060102150405.000") != s[3:17]+"."+s[17:20] || strconv.FormatInt(id.Sequence+10000, 10)[1:] != s[24:] {
			t.Fatalf("parse read %s as %s", s, line)
		}
	}
}

// TestGenFormatSegment: gen -segment -format prints a tag's numbers of the
// day, going on from where the last gen stopped.
func TestGenFormatSegment(t *testing.T) {
	isolateDB(t)
	var got []string
	for range 2 {
		code, out, stderr := runCLIShared(t, "gen", "-segment", "order", "-format", order, "-tz", "UTC", "-n", "3")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		got = append(got, strings.Fields(out)...)
	}
	day := time.Now().UTC().Format("20060102")
	for i, s := range got {
		if want := fmt.Sprintf("ORD-%s-%06d", day, i+1); s != want {
			t.Fatalf("gen printed %q, want ORD-%s-000001 to 000006", got, day)
		}
	}
}

// TestZones: on a machine in any zone, a scheme-2 pattern works with the
// default zone, UTC; parse -tz prints the time in the zone it was given;
// and a fixed offset is a zone. The command runs as a child process with
// $TZ set, as on such a machine.
func TestZones(t *testing.T) {
	const (
		str  = "0012026112708300012300070005"
		utc  = `{"UID":"2126232055304974341","timestamp":"2026-11-27 08:30:00.123","workerId":"7","sequence":"5"}`
		east = `{"uid":"2126111259349774341","time":"2026-11-27T08:30:00.123+08:00","workerId":"7","sequence":"5"}`
	)
	run := func(t *testing.T, tz string, args ...string) string {
		t.Helper()
		cmd := uidgenCommand(t, args...)
		cmd.Env = append(cmd.Env, "TZ="+tz)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("TZ=%s uidgen %s: %v: %s", tz, strings.Join(args, " "), err, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	for _, tz := range []string{"UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata"} {
		t.Run(tz, func(t *testing.T) {
			before := time.Now().UTC()
			s := run(t, tz, "gen", "-layout", "twitter", "-worker", "7", "-format", scheme2, "-n", "1")
			at, err := time.Parse("20060102150405.000", s[3:17]+"."+s[17:20])
			if err != nil || at.Before(before.Truncate(time.Millisecond)) || at.After(time.Now().UTC().Add(time.Minute)) {
				t.Errorf("gen -format %s printed %s (%v): want the time in UTC, %v", scheme2, s, err, before)
			}
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"-tz", "UTC"}, utc},
				{nil, utc}, // the pattern's default zone, not the machine's
				{[]string{"-tz", "+08:00", "-json"}, east},
			} {
				args := append(append([]string{"parse", "-layout", "twitter", "-format", scheme2}, c.args...), str)
				if got := run(t, tz, args...); got != c.want {
					t.Errorf("parse %v: %s, want %s", c.args, got, c.want)
				}
			}
			if got, want := run(t, tz, "parse", "-tz", "-05:30", "512360392635531264"),
				`{"UID":"512360392635531264","timestamp":"2026-11-22 03:00:00","workerId":"42","sequence":"0"}`; got != want {
				t.Errorf("parse -tz -05:30: %s, want %s", got, want)
			}
		})
	}
}

// runCLIShared is runCLI in the state isolateDB gave the test already, so
// that two runs share the SQLite file.
func runCLIShared(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := Main(args, &out, &errOut, newStores(&errOut))
	return code, out.String(), errOut.String()
}

func TestFormatBadCalls(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "-json", "-format", scheme2}, "-json and -format"},
		{[]string{"gen", "-encoding", "base32", "-format", scheme2}, "-encoding and -format"},
		{[]string{"gen", "-tz", "UTC"}, "-tz needs -format"},
		{[]string{"gen", "-format", scheme2, "-tz", "Mars/Olympus", "-layout", "twitter"}, `-tz "Mars/Olympus" is no zone`},
		{[]string{"gen", "-format", scheme2}, "{worker:4} has too few digits: its worker field goes to 1048575, which needs {worker:7}"},
		{[]string{"gen", "-layout", "twitter", "-format", "{yyyy}{MM}{dd}{HH}{mm}{ss}{worker:4}{seq:4}"}, "no {SSS}"},
		{[]string{"gen", "-layout", "twitter", "-format", "{yyyy", "-tz", "UTC"}, "{ at byte 0 is not closed"},
		{[]string{"gen", "-segment", "order", "-format", "ORD-{yyyy}{MM}{dd}{HH}{mm}-{seq:4}"}, "{mm} would start a period each minute"},
		{[]string{"gen", "-segment", "order", "-format", "ORD-{worker:3}-{seq:4}"}, "a segment serial has no worker"},
		{[]string{"gen", "-segment", "order", "-tz", "UTC"}, "-tz needs -format"},
		{[]string{"parse", "-format", scheme2, "-encoding", "base32", "1"}, "-encoding and -format"},
		{[]string{"parse", "-layout", "twitter", "-tz", "+8", "-format", scheme2, "1"}, `-tz "+8" is no zone: unknown time zone +8; want a zone's name, as UTC or Asia/Shanghai, or a fixed offset from UTC, as +08:00 or -05:30`},
		{[]string{"parse", "-layout", "twitter", "-tz", "UTC", "-format", scheme2, "0012026112708300012320470005"}, "worker 2047 is past the layout's largest, 1023"},
		{[]string{"parse", "-layout", "twitter", "-tz", "Europe/Berlin", "-format", scheme2, "1"}, "zone Europe/Berlin changes its offset: it goes from CET"},
		{[]string{"serve", "-serial", "order"}, "want NAME=PATTERN"},
		{[]string{"serve", "-serial", "order=ORD-{seq:6}", "-serial", "order=X{seq:2}"}, `serial "order" given twice`},
		{[]string{"serve", "-serial", "order=ORD-{yyyy}{dd}-{seq:6}"}, "{dd} needs {MM}"},
		{[]string{"serve", "-serial", "or der=ORD-{seq:6}"}, "bad tag"},
		{[]string{"serve", "-tz", "UTC"}, "-tz needs -serial"},
		{[]string{"serve", "-serial", "order=ORD-{seq:6}", "-tz", "Nowhere"}, `-tz "Nowhere" is no zone`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestServeSerial: serve -serial hands out ORD-<today>-000001 onwards, one
// at a time and in batches, names the zone on its status page, answers an
// unknown name with 404 and keeps /segment off the serial's tags.
func TestServeSerial(t *testing.T) {
	s := startServer(t, "-worker", "3", "-serial", "order="+order, "-serial", "inv=INV-{yyyy}{MM}-{seq:4}", "-tz", "UTC")
	day := time.Now().UTC().Format("20060102")
	want := func(i int) string { return fmt.Sprintf("ORD-%s-%06d", day, i) }
	r := s.do(t, "GET", "/serial/order")
	if r.status != 200 || r.body != want(1)+"\n" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /serial/order: %d %q, want %s", r.status, r.body, want(1))
	}
	r = s.do(t, "GET", "/serial/order/ids?n=3")
	var strs []string
	if err := json.Unmarshal([]byte(r.body), &strs); err != nil || r.status != 200 || strings.Join(strs, " ") != strings.Join([]string{want(2), want(3), want(4)}, " ") {
		t.Fatalf("GET /serial/order/ids?n=3: %d %q (%v), want %s to %s", r.status, r.body, err, want(2), want(4))
	}
	r = s.do(t, "GET", "/serial/order/ids?n=2", "Accept", "text/plain")
	if r.body != want(5)+"\n"+want(6)+"\n" {
		t.Fatalf("GET /serial/order/ids?n=2 as text: %q", r.body)
	}
	if r := s.do(t, "GET", "/serial/inv"); r.body != "INV-"+day[:6]+"-0001\n" {
		t.Fatalf("GET /serial/inv: %q", r.body)
	}
	for _, c := range []struct {
		path   string
		status int
		says   string
	}{
		{"/serial/nope", http.StatusNotFound, `no serial \"nope\": serve has inv, order`},
		{"/serial/order/ids?n=0", http.StatusBadRequest, "n 0 is out of range"},
		{"/serial/order/ids", http.StatusBadRequest, "no n"},
		{"/segment/order:" + day, http.StatusConflict, "holds the numbers of -serial order"},
	} {
		r := s.do(t, "GET", c.path)
		if r.status != c.status || !strings.Contains(r.body, c.says) || !strings.HasPrefix(r.body, `{"error":`) {
			t.Errorf("GET %s: %d %s; want %d saying %s", c.path, r.status, r.body, c.status, c.says)
		}
	}
	// Leaf's route refuses a serial's tags as /segment/ does, with a 409
	// that says why, not the 500 of a failing database.
	leafPath := "/api/segment/get/order:" + day
	checkLeafAnswer(t, s.do(t, "GET", leafPath), leafPath, http.StatusConflict,
		fmt.Sprintf("tag %q holds the numbers of -serial order, which end with their period: take them from /serial/order", "order:"+day))
	if r := s.do(t, "POST", "/serial/order"); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST /serial/order: %d", r.status)
	}
	page := s.do(t, "GET", "/", "Accept", "text/html").body
	if !strings.Contains(page, `<span id="serial-zone">UTC (UTC, UTC&#43;00:00)</span>`) || !strings.Contains(page, "ORD-{yyyy}{MM}{dd}-{seq:6}") {
		t.Errorf("the status page does not name the zone and the patterns:\n%s", page)
	}
}

// TestServeSerialBesideTag runs docs/segment.md's and docs/serial.md's
// examples together: the tag "order" of gen -segment, then serve -serial
// 'order=ORD-...'. The tag is served on /segment/order and Leaf's route,
// after the numbers gen printed; the serial counts from 1 on its tags
// order:<date>, which the tag routes refuse with 409. A serial without
// dates writes its tag's own numbers, which /segment/ shares: no number
// twice.
func TestServeSerialBesideTag(t *testing.T) {
	isolateDB(t)
	code, out, stderr := runCLIShared(t, "gen", "-segment", "order", "-n", "5")
	if code != 0 || strings.Join(strings.Fields(out), " ") != "1 2 3 4 5" {
		t.Fatalf("gen -segment order -n 5: exit %d, %q, %s", code, out, stderr)
	}
	s := startServer(t, "-worker", "3", "-serial", "order="+order, "-serial", "inv=INV-{seq:8}", "-tz", "Asia/Shanghai")
	r := s.do(t, "GET", "/segment/order")
	first, err := strconv.ParseInt(strings.TrimSpace(r.body), 10, 64)
	if r.status != 200 || err != nil || first <= 5 {
		t.Fatalf("GET /segment/order: %d %q, want 200 and a number above gen's 5", r.status, r.body)
	}
	if n := leafNumber(t, s.do(t, "GET", "/api/segment/get/order"), "/api/segment/get/order"); n <= first {
		t.Fatalf("GET /api/segment/get/order: %d after /segment/order's %d", n, first)
	}
	zone, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Now().In(zone).Format("20060102")
	if r := s.do(t, "GET", "/serial/order"); r.status != 200 || r.body != "ORD-"+day+"-000001\n" {
		t.Fatalf("GET /serial/order: %d %q, want ORD-%s-000001", r.status, r.body, day)
	}
	why := fmt.Sprintf("tag %q holds the numbers of -serial order, which end with their period: take them from /serial/order", "order:"+day)
	if r := s.do(t, "GET", "/segment/order:"+day); r.status != http.StatusConflict || !strings.Contains(r.body, strconv.Quote(why)[1:]) {
		t.Errorf("GET /segment/order:%s: %d %s, want 409 saying %s", day, r.status, r.body, why)
	}
	checkLeafAnswer(t, s.do(t, "GET", "/api/segment/get/order:"+day), "/api/segment/get/order:"+day, http.StatusConflict, why)

	seen := map[int64]string{}
	for i := range 3 {
		r := s.do(t, "GET", "/serial/inv")
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(r.body, "INV-"), "\n"), 10, 64)
		if r.status != 200 || err != nil {
			t.Fatalf("GET /serial/inv: %d %q", r.status, r.body)
		}
		seen[n] = "/serial/inv"
		r = s.do(t, "GET", "/segment/inv")
		m, err := strconv.ParseInt(strings.TrimSpace(r.body), 10, 64)
		if r.status != 200 || err != nil {
			t.Fatalf("GET /segment/inv: %d %q, want the tag of the dateless serial served too", r.status, r.body)
		}
		if by, dup := seen[m]; dup {
			t.Fatalf("request %d: /segment/inv handed out %d, as %s did", i, m, by)
		}
		seen[m] = "/segment/inv"
	}
}

// midnightZone writes a zoneinfo file of one UTC offset, named Test/Midnight
// in a directory that $ZONEINFO points the test's processes to, whose
// midnight falls at about in from now, and returns that midnight and the
// zone.
func midnightZone(t *testing.T, in time.Duration) (time.Time, *time.Location) {
	t.Helper()
	at := time.Now().Add(in).Truncate(time.Second)
	offset := int32((86_400 - at.Unix()%86_400) % 86_400)
	if offset > 43_200 {
		offset -= 86_400
	}
	// TZif version 1: the header, no transitions, one local time type
	// (the offset, not DST, abbreviation "MID"), and its abbreviation.
	tz := append([]byte("TZif"), make([]byte, 16)...)
	for _, n := range []uint32{0, 0, 0, 0, 1, 4} { // isutcnt isstdcnt leapcnt timecnt typecnt charcnt
		tz = binary.BigEndian.AppendUint32(tz, n)
	}
	tz = binary.BigEndian.AppendUint32(tz, uint32(offset))
	tz = append(tz, 0, 0, 'M', 'I', 'D', 0)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "Test"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Test", "Midnight"), tz, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ZONEINFO", dir)
	// Not LoadLocation, which reads $ZONEINFO once a process.
	loc, err := time.LoadLocationFromTZData("Test/Midnight", tz)
	if err != nil {
		t.Fatal(err)
	}
	if h, m, sec := at.In(loc).Clock(); h+m+sec != 0 {
		t.Fatalf("the zone's midnight is not at %v: %v", at, at.In(loc))
	}
	return at, loc
}

// TestServeSerialFleetMidnight: three serve processes hand out one daily
// serial from one tag table while the zone's midnight passes (a zoneinfo
// file the test writes), and stop. Each day's numbers are unique; no
// request sent after midnight gets the day before; and of each day's
// numbers below its max_id, all but at most one a process (the number a
// process drops when the day ends under a take) were handed out or given
// back at exit.
func TestServeSerialFleetMidnight(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a midnight some seconds away")
	}
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		const processes, clients = 3, 2
		db := s.Open(t)
		table := dbtest.Table(t, db, "leaf_alloc_")
		midnight, loc := midnightZone(t, 8*time.Second)
		servers := make([]*server, processes)
		for i := range servers {
			servers[i] = startServer(t, "-dsn", s.DSN, "-segment-table", table, "-serial", "order=ORD-{yyyy}{MM}{dd}-{seq:8}", "-tz", "Test/Midnight")
		}
		if time.Now().After(midnight.Add(-time.Second)) {
			t.Skipf("the servers took till %v to start, too close to midnight at %v", time.Now(), midnight)
		}
		dayBefore, dayAfter := midnight.Add(-time.Second).In(loc).Format("20060102"), midnight.In(loc).Format("20060102")
		var mu sync.Mutex
		handed := map[string][]int64{}
		errs := make(chan error, processes*clients)
		var wg sync.WaitGroup
		for _, srv := range servers {
			for range clients {
				wg.Go(func() {
					for {
						sent := time.Now()
						if sent.After(midnight.Add(time.Second)) {
							return
						}
						r, err := srv.try("GET", "/serial/order/ids?n=5", "Accept", "text/plain")
						if err == nil && r.status != 200 {
							err = fmt.Errorf("GET /serial/order/ids: %d %s", r.status, r.body)
						}
						if err != nil {
							errs <- err
							return
						}
						for _, str := range strings.Fields(r.body) {
							day, num, _ := strings.Cut(strings.TrimPrefix(str, "ORD-"), "-")
							n, _ := strconv.ParseInt(num, 10, 64)
							if !sent.Before(midnight) && day != dayAfter {
								errs <- fmt.Errorf("%s handed out for a request sent at %v, after midnight %v", str, sent, midnight)
								return
							}
							mu.Lock()
							handed[day] = append(handed[day], n)
							mu.Unlock()
						}
					}
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for _, srv := range servers {
			srv.stop(t, syscall.SIGTERM)
		}
		rows, err := segment.List(context.Background(), segment.Config{DB: db, Table: table})
		if err != nil {
			t.Fatal(err)
		}
		for _, day := range []string{dayBefore, dayAfter} {
			i := slices.IndexFunc(rows, func(r segment.Row) bool { return r.Tag == "order:"+day })
			nums := slices.Sorted(slices.Values(handed[day]))
			if i < 0 || len(nums) == 0 {
				t.Fatalf("day %s: no row, or no number handed out (%d)", day, len(nums))
			}
			if len(slices.Compact(slices.Clone(nums))) != len(nums) {
				t.Fatalf("day %s: a number handed out twice", day)
			}
			lost := rows[i].Next - 1 - int64(len(nums)) - rows[i].Returned
			if lost < 0 || lost > processes {
				t.Fatalf("day %s: max_id %d, %d handed out, %d given back: %d unaccounted, want 0 to %d (one dropped a process)",
					day, rows[i].Next, len(nums), rows[i].Returned, lost, processes)
			}
			t.Logf("day %s: %d handed out, %d given back, %d dropped at midnight", day, len(nums), rows[i].Returned, lost)
		}
	})
}
