package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// bearer admits a request that carries one of its tokens in its
// Authorization header, as RFC 6750 sends one: "Bearer TOKEN".
//
// It compares SHA-256 digests, all of one size, so that how long the
// comparison takes says nothing of the tokens' lengths, and compares the
// digest of the request's token with every token's, without stopping at
// a match, so that it says nothing of which token matched either.
type bearer struct {
	digests     [][sha256.Size]byte // of each token; set by newBearer, only read after
	metricsOpen bool                // /metrics needs no token
}

// newBearer returns the bearer of tokens, or nil where there are none and
// every request is admitted.
func newBearer(tokens []string, metricsOpen bool) *bearer {
	if len(tokens) == 0 {
		return nil
	}
	b := &bearer{digests: make([][sha256.Size]byte, len(tokens)), metricsOpen: metricsOpen}
	for i, t := range tokens {
		b.digests[i] = sha256.Sum256([]byte(t))
	}
	return b
}

// admits reports whether r may be served: it carries one of the tokens,
// or asks for /metrics where that is open.
func (b *bearer) admits(r *http.Request) bool {
	if b.metricsOpen && r.URL.Path == "/metrics" {
		return true
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimLeft(token, " ")))
	match := 0
	for _, d := range b.digests {
		match |= subtle.ConstantTimeCompare(got[:], d[:])
	}
	return match == 1
}

// unauthorized answers a request without a good token, saying no more
// than that: which part was wrong would help whoever guesses.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", "Bearer")
	writeError(w, http.StatusUnauthorized, "unauthorized")
}
