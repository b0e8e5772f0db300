package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cmd/uidgen/internal/serve"
	"github.com/seed4d941b13/uidgen/internal/idtest"
)

// TestServeOpaque: with -opaque-key, /id?opaque=1 and /ids?opaque=1
// answer in the shapes of /id and /ids with opaque texts in place of the
// IDs, which parse -opaque-key reveals as the IDs of the server's worker,
// in the order they were handed out, and which are the library's hiding
// of them and in no order; opaque=0 and no opaque answer the plain IDs;
// and opaque on the routes of numbers without an opaque form, or given
// twice, is a 400; serve says on stderr which key hides.
func TestServeOpaque(t *testing.T) {
	key := newKey(t, 32)
	path := keyFile(t, key)
	s := startServer(t, "-worker", "7", "-opaque-key", path)
	var texts []string
	for _, req := range []struct{ path, accept, contentType string }{
		{"/id?opaque=1", "", "text/plain; charset=utf-8"},
		{"/ids?n=50&opaque=1", "", "application/json"},
		{"/ids?n=50&opaque=1", "text/plain", "text/plain; charset=utf-8"},
		{fmt.Sprintf("/ids?opaque=true&n=%d", serve.MaxIDs), "application/json", "application/json"},
		{"/id?opaque=true", "application/json", "text/plain; charset=utf-8"},
	} {
		r := s.do(t, "GET", req.path, "Accept", req.accept)
		got, err := r.texts()
		if r.status != 200 || r.header.Get("Content-Type") != req.contentType || err != nil {
			t.Fatalf("GET %s, Accept %q: %d %s %.100q (%v); want 200 and %s", req.path, req.accept, r.status, r.header.Get("Content-Type"), r.body, err, req.contentType)
		}
		texts = append(texts, got...)
	}
	if want := 1 + 50 + 50 + serve.MaxIDs + 1; len(texts) != want {
		t.Fatalf("%d texts, want %d", len(texts), want)
	}
	checkTextOrder(t, texts, "1_")
	ids := parseTexts(t, path, texts)
	idtest.Check(t, idtest.As(uidgen.DefaultLayout(), 7), [][]int64{ids})
	checkHidden(t, opaqueOf(t, uidgen.DefaultLayout(), key), uidgen.Decimal, ids, texts)

	for _, p := range []string{"/id", "/id?opaque=0", "/ids?n=3&opaque=false"} {
		plain, err := s.do(t, "GET", p).ids()
		if err != nil || len(plain) == 0 || plain[0] <= ids[len(ids)-1] {
			t.Fatalf("GET %s: %v (%v); want plain IDs, above those hidden before", p, plain, err)
		}
		idtest.Check(t, idtest.As(uidgen.DefaultLayout(), 7), [][]int64{plain})
	}
	checkOpaqueRefused(t, s)
	s.stop(t, syscall.SIGTERM)
	if want := "uidgen serve: hiding the IDs of opaque=1 under key 1 of " + path; !strings.Contains(s.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
	}
}

// checkOpaqueRefused fails t unless s answers 400 and why to opaque given
// twice or of another value, and to opaque on the routes of numbers that
// have no opaque form.
func checkOpaqueRefused(t *testing.T, s *server) {
	t.Helper()
	for _, tt := range []struct{ path, want string }{
		{"/id?opaque=1&opaque=1", "opaque given 2 times (1, 1): want it once"},
		{"/ids?n=3&opaque=2", `opaque "2": want 0, 1, true or false`},
		{"/segment/order?opaque=1", "opaque: /segment/order hands out numbers that have no opaque form; opaque IDs come from /id and /ids"},
		{"/segment/order/ids?n=3&opaque=0", "opaque: /segment/order/ids hands out numbers that have no opaque form"},
		{"/serial/order?opaque=1", "opaque: /serial/order hands out numbers"},
		{"/serial/order/ids?n=3&opaque=1", "opaque: /serial/order/ids hands out numbers"},
	} {
		r := s.do(t, "GET", tt.path)
		var body struct{ Error string }
		if err := json.Unmarshal([]byte(r.body), &body); err != nil || r.status != 400 || !strings.Contains(body.Error, tt.want) {
			t.Errorf("GET %s: %d %q (%v); want 400 and %q", tt.path, r.status, r.body, err, tt.want)
		}
	}
}
