package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
)

// chromeAccept is the Accept header Chromium sends for a page.
const chromeAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8," +
	"application/signed-exchange;v=b3;q=0.7"

// TestStatusPage: GET / gives a browser the status page, with the worker
// ID and the ring's fill, and every other client (curl) an index as JSON:
// the worker ID, the layout and the routes.
func TestStatusPage(t *testing.T) {
	s := startServer(t, "-worker", "7")
	s.do(t, "GET", "/ids?n=100")
	index := `{"worker_id":"7","layout":"` + uidgen.DefaultLayout().Bits().String() + `","routes":["GET /id","GET /ids?n=N",`
	tests := []struct {
		name, method, accept string
		status               int
		contentType          string
		want                 []string // in the body
	}{
		{"chromium", "GET", chromeAccept, 200, "text/html; charset=utf-8", []string{
			`<meta http-equiv="refresh" content="5">`, `<td id="worker-id">7</td>`, " / 65,536 IDs ready",
			"none yet: a tag is served from its first request"}},
		{"html", "GET", "text/html", 200, "text/html; charset=utf-8", []string{`<td id="worker-id">7</td>`}},
		{"json", "GET", "application/json", 200, "application/json", []string{index}},
		{"json over html", "GET", "text/html;q=0.5, application/json", 200, "application/json", []string{index}},
		{"curl", "GET", "*/*", 200, "application/json", []string{index, `"GET / (a status page for a browser)"]}`}},
		{"no accept", "GET", "", 200, "application/json", []string{index}},
		{"post", "POST", "text/html", 405, "application/json", []string{`"error":"method POST not allowed on /: use GET"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := s.do(t, tc.method, "/", "Accept", tc.accept)
			if r.status != tc.status || r.header.Get("Content-Type") != tc.contentType || r.header.Get("Vary") != "Accept" {
				t.Fatalf("%s / with Accept %q: %d, %s, Vary %q; want %d, %s, Vary Accept:\n%s",
					tc.method, tc.accept, r.status, r.header.Get("Content-Type"), r.header.Get("Vary"), tc.status, tc.contentType, r.body)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.body, w) {
					t.Errorf("%s / with Accept %q: no %q in\n%s", tc.method, tc.accept, w, r.body)
				}
			}
		})
	}
	if r := s.do(t, "GET", "/nowhere", "Accept", chromeAccept); r.status != 404 || !strings.Contains(r.body, `no such path \"/nowhere\"`) {
		t.Errorf("GET /nowhere from a browser: %d %s, want 404 and the routes", r.status, r.body)
	}
	s.stop(t, syscall.SIGTERM)
}

// chromiumTimeout bounds one headless Chromium run: a cold start on a
// loaded 2-core CI machine takes up to tens of seconds.
const chromiumTimeout = 2 * time.Minute

// TestStatusPageInBrowser opens the status page of uidgen serve, leasing
// its worker ID from MariaDB and serving two segment tags of three in its
// table, in Debian's headless Chromium: the DOM the browser built holds
// the worker ID, the ring's fill and the tags served, and neither the tag
// never asked for nor one not in the table. It saves a screenshot, to
// $UIDGEN_SCREENSHOT where set; docs/status-page.png is made so:
//
//	UIDGEN_SCREENSHOT=$PWD/docs/status-page.png UIDGEN_MYSQL_DSN='root@tcp(127.0.0.1:3306)/test' \
//	  go test -count=1 -run StatusPageInBrowser ./cmd/uidgen
func TestStatusPageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("needs headless chromium; runs in the full suite (without -short)")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no chromium in CI (%v): install chromium: .ci/run does", err)
		}
		t.Skipf("needs Debian's chromium (%v): apt-get install chromium", err)
	}
	db := dbtest.Shared(t, "mysql")
	tt := newTagTable(t, db, map[string]int64{"order": 1000, "invoice": 100, "unasked": 1000})
	srv := startServer(t, tt.args(t, "-lease")...)
	m := regexp.MustCompile(`worker ID (\d+)\)`).FindStringSubmatch(srv.stderr.String())
	if m == nil {
		t.Fatalf("serve did not say its worker ID:\n%s", srv.stderr)
	}
	workerID := m[1]

	srv.do(t, "GET", "/ids?n=5000")
	srv.do(t, "GET", "/", "Accept", "text/html") // the IDs a second count from this load
	for _, path := range []string{"/segment/order/ids?n=250", "/segment/invoice/ids?n=40", "/api/segment/get/order"} {
		if r := srv.do(t, "GET", path); r.status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	if r := srv.do(t, "GET", "/segment/nosuch"); r.status != 404 {
		t.Fatalf("GET /segment/nosuch: %d %s, want 404", r.status, r.body)
	}
	srv.do(t, "GET", "/ids?n=3000")

	dom := runChromium(t, chromium, "--dump-dom", srv.url+"/")
	for _, want := range []string{
		`<td id="worker-id">` + workerID + `</td>`,
		`<span class="ok">held</span>`,
		" / 65,536 IDs ready",
		`<tr data-tag="order"><td><code>order</code></td>`,
		`<tr data-tag="invoice"><td><code>invoice</code></td>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the DOM has no %q:\n%s", want, dom)
		}
	}
	if !regexp.MustCompile(`<td id="ring"><meter min="0" max="65536" value="\d+"></meter> [\d,]+ / 65,536 IDs ready</td>`).MatchString(dom) {
		t.Errorf("the DOM shows no ring's fill:\n%s", dom)
	}
	for _, absent := range []string{"unasked", "nosuch"} {
		if strings.Contains(dom, absent) {
			t.Errorf("the DOM shows tag %q, which serve does not serve:\n%s", absent, dom)
		}
	}

	shot := os.Getenv("UIDGEN_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "status-page.png")
	}
	os.Remove(shot) // so that a file there afterwards is this run's
	runChromium(t, chromium, "--screenshot="+shot, "--window-size=1200,900", srv.url+"/")
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("no PNG screenshot at %s (%d bytes): %v", shot, len(png), err)
	}
	t.Logf("screenshot of the status page: %s (%d bytes)", shot, len(png))
	srv.stop(t, syscall.SIGTERM)
}

// runChromium runs headless Chromium on args, within chromiumTimeout, and
// returns its stdout. Chromium starts helper processes of its own: it runs
// in a process group of its own, which is killed by its leader's PID when
// the run ends, however it ends.
func runChromium(t *testing.T, chromium string, args ...string) string {
	t.Helper()
	what := strings.Join(args, " ")
	ctx, cancel := context.WithTimeout(t.Context(), chromiumTimeout)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, chromium, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A helper that outlives the leader keeps stdout open: Wait stops
	// copying after this long, and the group is killed below.
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			t.Errorf("killing chromium's process group %d: %v", cmd.Process.Pid, err)
		}
	}()
	err := cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("chromium %s: still running after %v:\n%s", what, chromiumTimeout, stderr.String())
	}
	if err != nil {
		t.Fatalf("chromium %s: %v:\n%s", what, err, stderr.String())
	}
	t.Logf("chromium %s: %v", what, time.Since(start).Round(time.Millisecond))
	return stdout.String()
}
