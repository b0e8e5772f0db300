package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/metrics"
	"github.com/seed4d941b13/uidgen/segment"
)

// DefaultMaxTags bounds the generators Tags opens by default: each holds
// a ring of up to 65,536 numbers (segment.Config.RingSize's default) as a
// few ranges, a few KiB, and two goroutines.
const DefaultMaxTags = 100

// openTimeout bounds opening a tag's generator, and NewTags's read of its
// table: connecting, and creating the table or the row where asked to.
const openTimeout = 10 * time.Second

// missingFresh is how long a tag that segment.Lookup found missing answers
// 404 without asking again: repeated requests for a tag that is not there
// cost the database one SELECT a second, and a row added to the table is
// served within a second. (Leaf's server re-reads its tags every minute.)
const missingFresh = time.Second

// Why serve has no generator for a tag; the handlers map them to statuses.
var (
	ErrSegmentOff  = errors.New("segment mode is off: the worker ID is leased from etcd or Redis, which keep no tag table")
	errUnknownTag  = errors.New("unknown tag")
	errTooManyTags = errors.New("too many tags")
	errStopping    = errors.New("serve is stopping")
)

// TagsConfig is what Tags serves.
type TagsConfig struct {
	// Segment is the config of every tag's generator, Tag aside: its DB
	// and Table, which are required, its claim sizes and Description.
	Segment segment.Config
	// MaxTags is the most tags served at once; 0 means DefaultMaxTags.
	MaxTags int
	// Create serves tags not in the table too, creating their rows, and
	// the table where it is missing.
	Create bool
	// Serials are -serial's serial numbers, on the tags NAME and
	// NAME:<date> of the same table; Close closes them. Zone is their
	// dates' zone.
	Serials Serials
	Zone    *time.Location
}

// Tags opens a segment generator per tag of one table on the tag's first
// request, and closes them all at the end.
// A Tags must not be copied.
type Tags struct {
	base    segment.Config // each generator's config, Tag aside
	create  bool           // open tags not in the table, creating their rows
	maxTags int
	reg     *prometheus.Registry // each generator's metrics, labelled with its tag
	now     func() time.Time
	serials *serials // nil without Config.Serials

	// ctx bounds the opens in progress; Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex           // guards tags and closed
	tags   map[string]*tagEntry // the tags opened and being opened: at most maxTags
	closed bool                 // set by Close: no tag is opened from then on
	// opening counts the opens in progress: Add under mu while !closed,
	// so Close, which sets closed first, waits for every one.
	opening sync.WaitGroup

	// missingMu guards missing and missingSince. missing holds the tags
	// Lookup found absent since missingSince, and empties once that is
	// missingFresh ago, so it holds at most a second's unknown tags.
	missingMu    sync.Mutex
	missing      map[string]bool
	missingSince time.Time
}

// tagEntry is one tag's generator, or its open in progress.
type tagEntry struct {
	ready chan struct{} // closed by the open once g is set or the entry dropped
	g     *segment.Generator
	err   error // why the open failed; the entry is gone from tags then
}

// NewTags serves the tags of cfg's table. It checks the table's name, and
// creates the table where cfg.Create is set and it is missing; a missing
// table is otherwise a table without tags. It fails with the segment
// package's errors: segment.ErrBadTag, uidgen.ErrConfig, ... On failure
// the serials are the caller's to close.
func NewTags(cfg TagsConfig) (*Tags, error) {
	if cfg.MaxTags == 0 {
		cfg.MaxTags = DefaultMaxTags
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Tags{base: cfg.Segment, create: cfg.Create, maxTags: cfg.MaxTags, reg: prometheus.NewRegistry(), now: time.Now,
		ctx: ctx, cancel: cancel, tags: make(map[string]*tagEntry)}
	if len(cfg.Serials) > 0 {
		s.serials = &serials{loc: cfg.Zone, byName: cfg.Serials}
	}
	listCtx, cancelList := context.WithTimeout(ctx, openTimeout)
	defer cancelList()
	_, err := segment.List(listCtx, s.base)
	if errors.Is(err, uidgen.ErrNoTable) && s.create {
		err = segment.EnsureSchema(listCtx, s.base)
	}
	if err != nil && !errors.Is(err, uidgen.ErrNoTable) {
		cancel()
		return nil, err
	}
	return s, nil
}

// generator returns tag's generator, opening it on the tag's first request.
// Concurrent first requests share one open; one that fails is tried again
// by the next request. ctx bounds the wait, not the open.
func (s *Tags) generator(ctx context.Context, tag string) (*segment.Generator, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errStopping
	}
	e, ok := s.tags[tag]
	if !ok {
		if len(s.tags) >= s.maxTags {
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: %q would be tag %d, and -max-tags is %d", errTooManyTags, tag, s.maxTags+1, s.maxTags)
		}
		e = &tagEntry{ready: make(chan struct{})}
		s.tags[tag] = e
		s.opening.Add(1)
		s.mu.Unlock()
		s.open(tag, e)
	} else {
		s.mu.Unlock()
	}
	select {
	case <-e.ready:
		return e.g, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// open opens tag's generator into e, or drops e with the reason.
func (s *Tags) open(tag string, e *tagEntry) {
	defer s.opening.Done()
	defer close(e.ready)
	ctx, cancel := context.WithTimeout(s.ctx, openTimeout)
	defer cancel()
	e.g, e.err = s.newGenerator(ctx, tag)
	if e.err != nil {
		s.mu.Lock()
		delete(s.tags, tag)
		s.mu.Unlock()
	}
}

// newGenerator opens tag's generator and registers its metrics. Without
// create it opens only a tag in the table (segment.Lookup), for segment.New
// would create it.
func (s *Tags) newGenerator(ctx context.Context, tag string) (*segment.Generator, error) {
	cfg := s.base
	cfg.Tag = tag
	var g *segment.Generator
	var err error
	if s.create {
		g, err = segment.New(ctx, cfg)
		if errors.Is(err, uidgen.ErrNoTable) {
			if err = segment.EnsureSchema(ctx, cfg); err == nil {
				g, err = segment.New(ctx, cfg)
			}
		}
	} else {
		g, err = s.lookup(ctx, cfg)
	}
	if err != nil {
		return nil, err
	}
	if err := prometheus.WrapRegistererWith(prometheus.Labels{"tag": tag}, s.reg).Register(metrics.NewSegment(g)); err != nil {
		return nil, errors.Join(fmt.Errorf("metrics of tag %q: %w", tag, err), g.Close())
	}
	return g, nil
}

// lookup opens cfg's tag with segment.Lookup, which writes nothing, unless
// it found the tag missing less than missingFresh ago. A missing tag or
// table is errUnknownTag, and so is a name no row can have, which Lookup
// refuses before it sends anything.
func (s *Tags) lookup(ctx context.Context, cfg segment.Config) (*segment.Generator, error) {
	unknown := fmt.Errorf("%w: no row %q in %s: add one, or start serve with -create-tags", errUnknownTag, cfg.Tag, s.base.Table)
	s.missingMu.Lock()
	if s.now().Sub(s.missingSince) >= missingFresh {
		s.missing, s.missingSince = map[string]bool{}, s.now()
	}
	missing := s.missing[cfg.Tag]
	s.missingMu.Unlock()
	if missing {
		return nil, unknown
	}
	g, err := segment.Lookup(ctx, cfg)
	if errors.Is(err, segment.ErrBadTag) {
		return nil, unknown
	}
	if errors.Is(err, segment.ErrNoTag) || errors.Is(err, uidgen.ErrNoTable) {
		s.missingMu.Lock()
		s.missing[cfg.Tag] = true
		s.missingMu.Unlock()
		return nil, unknown
	}
	return g, err
}

// Close stops opening tags, waits for the opens in progress, and closes
// every generator and serial, which gives back the numbers each holds. It
// leaves the database open, for the caller opened it. Serve calls it once
// no request runs.
func (s *Tags) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.opening.Wait()
	s.mu.Lock()
	gens := make([]*segment.Generator, 0, len(s.tags))
	for _, e := range s.tags {
		gens = append(gens, e.g)
	}
	s.mu.Unlock()
	// Concurrently: with the database down each Close takes seconds.
	errs := make([]error, len(gens))
	var wg sync.WaitGroup
	for i, g := range gens {
		wg.Go(func() { errs[i] = g.Close() })
	}
	wg.Wait()
	if s.serials != nil {
		errs = append(errs, s.serials.byName.Close())
	}
	return errors.Join(errs...)
}

// tagView is one served tag on the /segments page, as Leaf's /cache page
// shows its buffers.
type tagView struct {
	RingSize      int64     `json:"ring_size"`
	RingAvailable int64     `json:"ring_available"`
	Held          int64     `json:"held"` // claimed and not handed out: in the ring, and still to be put there
	Taken         int64     `json:"taken"`
	Claims        int64     `json:"claims"`
	ClaimSize     int64     `json:"claim_size"`
	ClaimsFailed  int64     `json:"claims_failed"`
	TakesFailed   int64     `json:"takes_failed"`
	LastClaim     time.Time `json:"last_claim"`
}

// views returns the tags open now, by name.
func (s *Tags) views() map[string]tagView {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := make(map[string]tagView, len(s.tags))
	for tag, e := range s.tags {
		select {
		case <-e.ready:
		default:
			continue // still opening
		}
		st := e.g.Stats()
		v[tag] = tagView{
			RingSize: st.Size, RingAvailable: st.Available, Held: st.Available + st.Pending,
			Taken: st.Taken, Claims: st.Claims, ClaimSize: st.ClaimSize, ClaimsFailed: st.ClaimsFailed, TakesFailed: st.TakesFailed,
			LastClaim: st.LastClaim.UTC(),
		}
	}
	return v
}

// tagStatus is the HTTP status of serve's own routes for why a tag has no
// generator.
func tagStatus(err error) int {
	switch {
	case errors.Is(err, errUnknownTag):
		return http.StatusNotFound
	case errors.Is(err, segment.ErrBadTag):
		return http.StatusBadRequest
	case errors.Is(err, ErrSegmentOff):
		return http.StatusNotImplemented
	default:
		return http.StatusServiceUnavailable
	}
}

// tagGenerator returns the generator of the request's tag, or answers why
// there is none.
func (s *Server) tagGenerator(w http.ResponseWriter, r *http.Request) (*segment.Generator, bool) {
	if s.tags == nil {
		writeError(w, tagStatus(ErrSegmentOff), ErrSegmentOff.Error())
		return nil, false
	}
	if why, ok := s.tags.serials.owned(r.PathValue("tag")); ok {
		writeError(w, http.StatusConflict, why)
		return nil, false
	}
	g, err := s.tags.generator(r.Context(), r.PathValue("tag"))
	if err != nil {
		writeError(w, tagStatus(err), err.Error())
		return nil, false
	}
	return g, true
}

func (s *Server) segmentID(w http.ResponseWriter, r *http.Request) {
	g, ok := s.tagGenerator(w, r)
	if !ok {
		return
	}
	n, err := g.NextID()
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeNumber(w, n)
}

func (s *Server) segmentIDs(w http.ResponseWriter, r *http.Request) {
	n, err := idsWanted(r.URL.RawQuery)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	g, ok := s.tagGenerator(w, r)
	if !ok {
		return
	}
	buf := s.bufs.Get().(*idsBuf)
	defer s.bufs.Put(buf)
	ids := buf.ids[:n]
	if _, err := g.NextIDs(ids); err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	buf.write(w, r, ids, appendDecimal)
}

// segments is the monitor page: every tag served, its ring, claims and
// the numbers it holds.
func (s *Server) segments(w http.ResponseWriter, _ *http.Request) {
	if s.tags == nil {
		writeError(w, tagStatus(ErrSegmentOff), ErrSegmentOff.Error())
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Table   string             `json:"table"`
		MaxTags int                `json:"max_tags"`
		Tags    map[string]tagView `json:"tags"`
	}{s.tags.base.Table, s.tags.maxTags, s.tags.views()})
}
