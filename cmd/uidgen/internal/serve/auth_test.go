package serve

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// Two tokens, as a file holds them while clients move from one to the
// other.
const (
	oldToken = "0123456789abcdef0123456789abcdef"
	newToken = "fedcba9876543210fedcba9876543210"
)

// authed returns a Server of a counter that asks for oldToken or
// newToken, with /metrics open where metricsOpen.
func authed(metricsOpen bool) (*Server, *counter) {
	g := new(counter)
	return New(Config{Generator: g, Tokens: []string{oldToken, newToken}, MetricsOpen: metricsOpen}), g
}

// get answers GET path on s with the Authorization header auth, none
// where it is "".
func get(s *Server, path, auth string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}

// TestBearerRefuses: a request without one of the tokens gets 401, the
// Bearer challenge and a body that says no more than "unauthorized", on
// every route, /metrics too unless it is open; and takes no ID.
func TestBearerRefuses(t *testing.T) {
	routes := []string{"/id", "/ids?n=3", "/parse/1", "/healthz", "/metrics", "/segment/order", "/segments",
		"/serial/order", "/api/segment/get/order", "/api/snowflake/get/order", "/decodeSnowflakeId?snowflakeId=1", "/", "/nowhere"}
	auths := map[string]string{
		"none":              "",
		"wrong":             "Bearer " + strings.Repeat("x", len(oldToken)),
		"a prefix":          "Bearer " + oldToken[:len(oldToken)-1],
		"one more":          "Bearer " + oldToken + "0",
		"two at once":       "Bearer " + oldToken + " " + newToken,
		"Basic":             "Basic " + oldToken,
		"no scheme":         oldToken,
		"empty":             "Bearer ",
		"another case":      "Bearer " + strings.ToUpper(oldToken),
		"Bearer, no space":  "Bearer" + oldToken,
		"the token's quote": `Bearer "` + oldToken + `"`,
	}
	for _, open := range []bool{false, true} {
		s, g := authed(open)
		for name, auth := range auths {
			for _, path := range routes {
				if open && path == "/metrics" {
					continue
				}
				w := get(s, path, auth)
				if w.Code != 401 || w.Header().Get("WWW-Authenticate") != "Bearer" || w.Body.String() != `{"error":"unauthorized"}`+"\n" {
					t.Errorf("metrics open %v, GET %s, %s: %d, WWW-Authenticate %q, %q; want 401, Bearer and only unauthorized",
						open, path, name, w.Code, w.Header().Get("WWW-Authenticate"), w.Body)
				}
			}
		}
		if n := g.taken.Load(); n != 0 {
			t.Errorf("metrics open %v: %d IDs taken by refused requests, want 0", open, n)
		}
	}
}

// TestBearerAdmits: either token of the file, under any case of the
// scheme's name, is served; /metrics without one only where it is open.
func TestBearerAdmits(t *testing.T) {
	s, g := authed(false)
	for i, auth := range []string{"Bearer " + oldToken, "Bearer " + newToken, "bearer " + oldToken, "BEARER  " + newToken} {
		w := get(s, "/id", auth)
		if want := string(rune('1'+i)) + "\n"; w.Code != 200 || w.Body.String() != want {
			t.Errorf("GET /id, %q: %d %q, want 200 and ID %q", auth, w.Code, w.Body, want)
		}
	}
	if w := get(s, "/metrics", "Bearer "+newToken); w.Code != 200 {
		t.Errorf("GET /metrics with a token: %d, want 200", w.Code)
	}
	open, _ := authed(true)
	if w := get(open, "/metrics", ""); w.Code != 200 || !strings.Contains(w.Body.String(), "go_goroutines") {
		t.Errorf("GET /metrics, open, without a token: %d %.100q, want 200 and the metrics", w.Code, w.Body)
	}
	if w := get(open, "/metrics/", ""); w.Code != 401 {
		t.Errorf("GET /metrics/, open, without a token: %d, want 401: only /metrics is open", w.Code)
	}
	if n := g.taken.Load(); n != 4 {
		t.Errorf("%d IDs taken, want the 4 of /id", n)
	}
}

// TestBearerSpendsNothing: 10,000 requests with a wrong token, on the
// routes that spend IDs, then one with the right token, which gets the
// counter's first ID: none of the refused took one.
func TestBearerSpendsNothing(t *testing.T) {
	s, _ := authed(false)
	routes := []string{"/id", "/ids?n=10000", "/healthz", "/api/snowflake/get/order", "/"}
	wrong := "Bearer " + strings.Repeat("0", len(oldToken))
	for i := range 10_000 {
		if w := get(s, routes[i%len(routes)], wrong); w.Code != 401 {
			t.Fatalf("GET %s with a wrong token: %d, want 401", routes[i%len(routes)], w.Code)
		}
	}
	if w := get(s, "/id", "Bearer "+oldToken); w.Code != 200 || w.Body.String() != "1\n" {
		t.Errorf("GET /id with the token after 10,000 refused: %d %q, want 200 and the first ID, 1", w.Code, w.Body)
	}
}

// BenchmarkBearer is a token's check: its digest and one comparison per
// token of a file of two, as while clients move from one to the other.
func BenchmarkBearer(b *testing.B) {
	bb := newBearer([]string{oldToken, newToken}, false)
	req := httptest.NewRequest("GET", "/id", nil)
	req.Header.Set("Authorization", "Bearer "+newToken)
	b.ReportAllocs()
	for b.Loop() {
		if !bb.admits(req) {
			b.Fatal("refused the right token")
		}
	}
}
