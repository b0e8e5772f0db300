package serve

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen/serial"
)

// Serial is one -serial's serial numbers: the generator, and the pattern
// it was opened with, which the status page shows.
type Serial struct {
	Pattern string
	Gen     *serial.Segment
}

// Serials are -serial's serial numbers, by name.
type Serials map[string]Serial

// Close closes every serial, which gives back the numbers each holds.
func (s Serials) Close() error {
	var errs []error
	for _, sr := range s {
		errs = append(errs, sr.Gen.Close())
	}
	return errors.Join(errs...)
}

// serials are the serial numbers serve hands out, and their dates' zone.
type serials struct {
	loc    *time.Location
	byName Serials
}

// owned returns why tag is not served as a tag, where a serial's numbers
// are in it: a serial's periods are the tags NAME:<date>, whose numbers
// end with their period, which the tag routes know nothing of. The plain
// tag NAME is not the serial's: a serial with dates never takes from it,
// so docs/segment.md's tag "order" and docs/serial.md's serial "order"
// are served side by side; a serial without dates writes NAME's own
// numbers, which end with no period, and /segment/NAME hands them out
// too, each from ranges of its own. A nil s owns none.
func (s *serials) owned(tag string) (why string, ok bool) {
	if s == nil {
		return "", false
	}
	name, _, dated := strings.Cut(tag, ":")
	if _, ok := s.byName[name]; !ok || !dated {
		return "", false
	}
	return fmt.Sprintf("tag %q holds the numbers of -serial %s, which end with their period: take them from /serial/%s", tag, name, name), true
}

// serialGenerator returns the request's serial, or answers why there is
// none.
func (s *Server) serialGenerator(w http.ResponseWriter, r *http.Request) (*serial.Segment, bool) {
	name := r.PathValue("name")
	var sr Serial
	if s.tags != nil && s.tags.serials != nil {
		sr = s.tags.serials.byName[name]
	}
	if sr.Gen == nil {
		names := "none: start serve with -serial NAME=PATTERN"
		if s.tags != nil && s.tags.serials != nil {
			names = strings.Join(slices.Sorted(maps.Keys(s.tags.serials.byName)), ", ")
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("no serial %q: serve has %s", name, names))
		return nil, false
	}
	return sr.Gen, true
}

func (s *Server) serialOne(w http.ResponseWriter, r *http.Request) {
	g, ok := s.serialGenerator(w, r)
	if !ok {
		return
	}
	str, err := g.Next(r.Context())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	w.Header()["Content-Type"] = textPlain
	io.WriteString(w, str+"\n")
}

func (s *Server) serialIDs(w http.ResponseWriter, r *http.Request) {
	n, err := idsWanted(r.URL.RawQuery)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	g, ok := s.serialGenerator(w, r)
	if !ok {
		return
	}
	strs := make([]string, n)
	for i := range strs {
		if strs[i], err = g.Next(r.Context()); err != nil {
			writeError(w, http.StatusServiceUnavailable, err.Error())
			return
		}
	}
	if prefersText(r.Header.Get("Accept")) {
		w.Header()["Content-Type"] = textPlain
		io.WriteString(w, strings.Join(strs, "\n")+"\n")
		return
	}
	writeJSON(w, http.StatusOK, strs)
}

// serialsStatus is the status page's table of the serials served.
type serialsStatus struct {
	Zone     string // the zone's name and its offset now
	Patterns map[string]string
}

// status returns what the status page shows of the serials at now.
func (s *serials) status(now time.Time) *serialsStatus {
	patterns := make(map[string]string, len(s.byName))
	for name, sr := range s.byName {
		patterns[name] = sr.Pattern
	}
	return &serialsStatus{Zone: fmt.Sprintf("%s (%s)", s.loc, now.In(s.loc).Format("MST, UTC-07:00")), Patterns: patterns}
}
