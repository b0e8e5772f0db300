package serve

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/seed4d941b13/uidgen"
)

// errNoKey is why opaque=1 is refused by a server started without a key.
var errNoKey = errors.New("opaque=1 asks for opaque IDs, and this server has no key: start uidgen serve with -opaque-key FILE")

// hiding reports whether the query q of /id or /ids asks for opaque IDs,
// with opaque=1 or opaque=true (0 and false ask for the plain IDs), or
// says why it cannot have them: a value of another kind, or no key.
func (s *Server) hiding(q url.Values) (bool, error) {
	vs, ok := q["opaque"]
	switch {
	case !ok:
		return false, nil
	case len(vs) > 1:
		return false, fmt.Errorf("opaque given %d times (%s): want it once, 0, 1, true or false", len(vs), strings.Join(vs, ", "))
	case vs[0] == "0" || vs[0] == "false":
		return false, nil
	case vs[0] != "1" && vs[0] != "true":
		return false, fmt.Errorf("opaque %q: want 0, 1, true or false", vs[0])
	case s.opaque == nil:
		return false, errNoKey
	}
	return true, nil
}

// appendOpaque appends the opaque text of id, in decimal. It fails only
// for an ID outside the key's layout, which the generator's is.
func (s *Server) appendOpaque(dst []byte, id int64) ([]byte, error) {
	text, err := s.opaque.Format(id, uidgen.Decimal)
	return append(dst, text...), err
}

// writeOpaque answers the opaque text of uid as a line, as writeNumber
// answers uid.
func (s *Server) writeOpaque(w http.ResponseWriter, uid int64) {
	line, err := s.appendOpaque(nil, uid)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header()["Content-Type"] = textPlain
	w.Write(append(line, '\n'))
}

// plainOnly answers 400 to any opaque parameter on a route of numbers
// that have no opaque form, a tag's or a serial's: answering them plain
// would show a client the numbers it asked to have hidden.
func plainOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if q, err := query(r.URL.RawQuery); err == nil && q.Has("opaque") {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("opaque: %s hands out numbers that have no opaque form; opaque IDs come from /id and /ids", r.URL.Path))
			return
		}
		h(w, r)
	}
}
