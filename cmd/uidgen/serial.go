package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/ringbuffer"
	"github.com/seed4d941b13/uidgen/segment"
	"github.com/seed4d941b13/uidgen/serial"
)

// patternHelp says what -format and -serial take.
const patternHelp = "literal text and {yyyy} {yy} {MM} {dd} {HH} {mm} {ss} {SSS} {worker:N} {seq:N}, {{ and }} for braces (docs/serial.md)"

// zoneFlag is -tz ZONE, the zone of the serial numbers' dates.
type zoneFlag struct{ name string }

func (z *zoneFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&z.name, "tz", "", "the `ZONE` of the serial numbers' dates: UTC, Asia/Shanghai, Local, ... (default: the local zone)")
}

// loc returns the flag's zone, the local zone where it is not set.
func (z *zoneFlag) loc() (*time.Location, error) {
	if z.name == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(z.name)
	if err != nil {
		return nil, fmt.Errorf("%w: -tz %q is no zone: %v", ErrUsage, z.name, err)
	}
	return loc, nil
}

// snowflake returns the Snowflake of pattern for layout in the flag's
// zone: a pattern that cannot hold the layout's IDs is a usage error.
func (z *zoneFlag) snowflake(pattern string, layout uidgen.Layout) (*serial.Snowflake, error) {
	loc, err := z.loc()
	if err != nil {
		return nil, err
	}
	f, err := serial.NewSnowflake(pattern, layout, loc)
	if err != nil {
		return nil, callerError{err}
	}
	return f, nil
}

// serialConfig returns the config of a Segment serial of pattern on tag,
// in the flag's zone, on the tag table of db.
func (z *zoneFlag) serialConfig(base segment.Config, pattern string) (serial.SegmentConfig, error) {
	loc, err := z.loc()
	return serial.SegmentConfig{Segment: base, Pattern: pattern, Location: loc}, err
}

// newSerial opens a Segment serial, creating the tag table where it is
// missing. A bad pattern or tag is a usage error.
func newSerial(ctx context.Context, cfg serial.SegmentConfig) (*serial.Segment, error) {
	if err := segment.EnsureSchema(ctx, cfg.Segment); err != nil {
		return nil, segmentUsage(err)
	}
	g, err := serial.NewSegment(ctx, cfg)
	if errors.Is(err, serial.ErrPattern) {
		return nil, callerError{err}
	}
	return g, segmentUsage(err)
}

// genSerials prints n serial numbers of pattern from the flags' tag, one per
// line.
func genSerials(s *segmentFlags, z *zoneFlag, pattern, dsn string, n int, stdout io.Writer) (err error) {
	if dsn == "" {
		return fmt.Errorf("%w: -segment needs -dsn (or $%s): the tags live in a table", ErrUsage, dsnEnv)
	}
	base := segment.Config{Tag: s.tag, Table: s.table, Start: s.start, Step: s.step, Description: "made by uidgen gen -format",
		RejectedTake: ringbuffer.Wait(segmentWait)}
	s.claims.apply(&base)
	cfg, err := z.serialConfig(base, pattern)
	if err != nil {
		return err
	}
	if cfg.Segment.DB, err = openDB(dsn); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, cfg.Segment.DB.Close()) }()
	ctx, cancel := context.WithTimeout(context.Background(), assignTimeout)
	defer cancel()
	g, err := newSerial(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, g.Close()) }()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	for range n {
		str, err := g.Next(context.Background())
		if err != nil {
			return err
		}
		out.WriteString(str)
		out.WriteByte('\n')
	}
	return nil
}

// serialSpecs are serve's -serial NAME=PATTERN flags, by name.
type serialSpecs map[string]string

func (s serialSpecs) String() string { return "" }

// Set takes NAME=PATTERN; a name given twice is an error.
func (s serialSpecs) Set(v string) error {
	name, pattern, ok := strings.Cut(v, "=")
	switch {
	case !ok || name == "" || pattern == "":
		return fmt.Errorf("%q: want NAME=PATTERN, as order=ORD-{yyyy}{MM}{dd}-{seq:6}", v)
	case s[name] != "":
		return fmt.Errorf("serial %q given twice", name)
	}
	s[name] = pattern
	return nil
}

// serials are the serial numbers serve hands out, by name, each with its
// pattern.
type serials struct {
	loc  *time.Location
	gens map[string]*serial.Segment
	pats map[string]string
}

// openSerials opens a Segment serial per spec on the tag table of s, each
// on the tags NAME:<date>. It closes what it opened where one fails.
func (s *tagServer) openSerials(specs serialSpecs, z *zoneFlag) (*serials, error) {
	loc, err := z.loc()
	if err != nil {
		return nil, err
	}
	out := &serials{loc: loc, gens: map[string]*serial.Segment{}, pats: specs}
	for _, name := range slices.Sorted(maps.Keys(specs)) {
		base := segment.Config{DB: s.db, Tag: name, Table: s.table, Description: "made by uidgen serve -serial"}
		s.claims.apply(&base)
		cfg, _ := z.serialConfig(base, specs[name])
		ctx, cancel := context.WithTimeout(s.ctx, assignTimeout)
		g, err := newSerial(ctx, cfg)
		cancel()
		if err != nil {
			return nil, errors.Join(fmt.Errorf("-serial %s=%s: %w", name, specs[name], err), out.close())
		}
		out.gens[name] = g
	}
	return out, nil
}

// owner returns the serial whose numbers tag holds: NAME's tags are NAME
// and NAME:<date>. A nil s owns none.
func (s *serials) owner(tag string) (name string, ok bool) {
	if s == nil {
		return "", false
	}
	name, _, _ = strings.Cut(tag, ":")
	_, ok = s.gens[name]
	return name, ok
}

// close closes every serial, which gives back the numbers each holds.
func (s *serials) close() error {
	var errs []error
	for _, g := range s.gens {
		errs = append(errs, g.Close())
	}
	return errors.Join(errs...)
}

// serialGenerator returns the request's serial, or answers why there is
// none.
func (s *idServer) serialGenerator(w http.ResponseWriter, r *http.Request) (*serial.Segment, bool) {
	name := r.PathValue("name")
	var g *serial.Segment
	if s.tags != nil && s.tags.serials != nil {
		g = s.tags.serials.gens[name]
	}
	if g == nil {
		names := "none: start serve with -serial NAME=PATTERN"
		if s.tags != nil && s.tags.serials != nil && len(s.tags.serials.gens) > 0 {
			names = strings.Join(slices.Sorted(maps.Keys(s.tags.serials.gens)), ", ")
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("no serial %q: serve has %s", name, names))
		return nil, false
	}
	return g, true
}

func (s *idServer) serialOne(w http.ResponseWriter, r *http.Request) {
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

func (s *idServer) serialIDs(w http.ResponseWriter, r *http.Request) {
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
	return &serialsStatus{Zone: fmt.Sprintf("%s (%s)", s.loc, now.In(s.loc).Format("MST, UTC-07:00")), Patterns: s.pats}
}
