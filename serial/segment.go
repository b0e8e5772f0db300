package serial

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/defaults"
	"github.com/seed4d941b13/uidgen/segment"
)

// SegmentConfig says how to build a Segment. Segment.DB, Segment.Tag and
// Pattern are required; the other zero values mean the defaults.
type SegmentConfig struct {
	// Segment configures each period's segment generator, as for segment.New.
	// Its Tag names the serial: a period's tag is Tag, a colon and the period's
	// date ("order:20261127"), or Tag alone for a pattern with no date, so Tag
	// is at most 117 bytes. Step and MaxStep default to segment.Config's, each
	// at most a thousandth and a hundredth of what {seq:N} holds: the ranges
	// held when a period ends are never handed out (docs/serial.md).
	Segment segment.Config

	// Pattern is the serial's pattern: literal text, date fields ({yyyy}
	// or {yy}, {MM}, {dd}, {HH}, each finer one needing the coarser ones)
	// and one {seq:N}. The finest date field names the period.
	Pattern string

	// Location is the zone the periods are dates in: UTC where nil.
	// Every process of a fleet must use the same one.
	Location *time.Location

	// Now is the wall clock that ends periods, time.Now where nil. It is
	// not Segment.Clock, which sizes claims and never goes back: a day
	// ends when the wall clock says so.
	Now func() time.Time
}

// Segment hands out the serial numbers of a pattern, each period's from a
// segment tag of its own. It is safe for concurrent use; build one with
// NewSegment and stop it with Close.
type Segment struct {
	cfg      SegmentConfig
	loc      *time.Location
	now      func() time.Time
	p        *pattern
	seq      field
	period   kind  // the finest date field, or literal for a pattern of none
	max      int64 // the largest number {seq:N} holds
	keyWidth int   // the digits of a period's key: 4 for a year ... 10 for an hour

	// mu serializes takes with the clock reads around them, so that of
	// one process's numbers of a period, those handed out come before the
	// one dropped at its end. It guards cur and closed.
	mu     sync.Mutex
	cur    *period // the latest period opened; nil before NewSegment's
	closed bool

	// dropped, where not nil, is told of each number dropped at a
	// period's end (tests account for every number of a period).
	dropped func(tag string, n int64)
}

// period is one period's generator and the pattern with its date written.
type period struct {
	key  int64
	tag  string
	g    *segment.Generator
	tmpl []byte
}

// NewSegment checks cfg, then opens the current period's tag under ctx,
// creating it if it is missing; segment.EnsureSchema must have made the
// table. It fails with an error wrapping uidgen.ErrConfig for a pattern that does
// not parse, has no {seq:N}, has a {worker:N}, a date field without the
// coarser ones (a {dd} without {MM}) or a time field finer than {HH}; and
// otherwise as segment.New does (a Tag too long for the period's date is
// segment.ErrBadTag).
func NewSegment(ctx context.Context, cfg SegmentConfig) (*Segment, error) {
	p, err := parsePattern(cfg.Pattern)
	if err != nil {
		return nil, err
	}
	g := &Segment{cfg: cfg, loc: cfg.Location, now: cfg.Now, p: p}
	if g.loc == nil {
		g.loc = time.UTC
	}
	if g.now == nil {
		g.now = time.Now
	}
	var ok bool
	if g.seq, ok = p.field(seq); !ok {
		return nil, p.errorf("no {seq:N}: a serial number needs its sequence")
	}
	for _, r := range segmentRefuses {
		if f, ok := p.field(r.k); ok {
			return nil, p.errorf("%s%s", f.name, r.why)
		}
	}
	if g.period, err = periodOf(p); err != nil {
		return nil, err
	}
	g.keyWidth = map[kind]int{literal: 0, year4: 4, month: 6, day: 8, hour: 10}[g.period]
	g.max = pow10(g.seq.width) - 1
	if g.cfg.Segment.Step == 0 {
		g.cfg.Segment.Step = max(1, min(defaults.SegmentStep, g.max/1000))
	}
	if g.cfg.Segment.MaxStep == 0 {
		g.cfg.Segment.MaxStep = max(g.cfg.Segment.Step, min(defaults.SegmentMaxStep, g.max/100))
	}
	if _, err := g.open(ctx, g.now()); err != nil {
		return nil, err
	}
	return g, nil
}

// segmentRefuses are the fields a Segment's pattern may not have, each
// with why, which follows the field in NewSegment's error.
var segmentRefuses = []struct {
	k   kind
	why string
}{
	{worker, ": a segment serial has no worker; its numbers are the tag's"},
	{minute, " would start a period each minute" + finestPeriod},
	{second, " would start a period each second" + finestPeriod},
	{milli, " would start a period each millisecond" + finestPeriod},
}

const finestPeriod = "; the finest is an hour ({HH}), for each period is a row of the tag table"

// periodOf returns p's finest date field, which names its period, or
// literal for a pattern of none. It refuses a date field without the
// coarser ones: a period is a date from its year down.
func periodOf(p *pattern) (kind, error) {
	period := literal
	chain := []kind{year4, month, day, hour}
	for i, k := range chain {
		_, has := p.field(k)
		if k == year4 {
			_, yy := p.field(year2)
			has = has || yy
		}
		if !has {
			continue
		}
		if i > 0 && period != chain[i-1] {
			return literal, p.errorf("%s needs %s: a period is a date from its year down", fieldName(k), fieldName(chain[i-1]))
		}
		period = k
	}
	return period, nil
}

// Next returns the next serial number, the pattern with its period's date
// and number written. It opens the tag of a period on the period's first
// take (under ctx), and closes the one before, which gives back the
// numbers it held. It fails with an error wrapping ErrOverflow once a
// period's numbers outgrow {seq:N}, with uidgen.ErrClosed after Close, and
// as segment's NextID and New do.
//
// The string names the period that was current, by this process's clock,
// when its number was taken: the clock is read after the take, and a
// number whose period ended by then is dropped, neither handed out nor
// given back, and one is taken from the new period. So no number of a
// period is taken after it ends; the string may reach the caller after.
// A clock that steps back keeps the latest period until it passes it.
func (g *Segment) Next(ctx context.Context) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		if g.closed {
			return "", fmt.Errorf("serial: pattern %q: %w", g.p.src, uidgen.ErrClosed)
		}
		cur, err := g.open(ctx, g.now())
		if err != nil {
			return "", err
		}
		n, err := cur.g.NextID()
		if err != nil {
			return "", fmt.Errorf("serial: pattern %q: %w", g.p.src, err)
		}
		if g.key(g.now()) > cur.key {
			if g.dropped != nil {
				g.dropped(cur.tag, n)
			}
			continue
		}
		if n > g.max {
			return "", fmt.Errorf("serial: pattern %q: %w: number %d of tag %s does not fit %s", g.p.src, ErrOverflow, n, cur.tag, g.seq.name)
		}
		var buf [64]byte
		b := append(buf[:0], cur.tmpl...)
		putDigits(b[g.seq.pos:g.seq.pos+g.seq.width], n)
		return string(b), nil
	}
}

// open returns the period of t, opening its tag if it is later than the
// current one's; an earlier t keeps the current one. g.mu is held, or g
// not yet shared.
func (g *Segment) open(ctx context.Context, t time.Time) (*period, error) {
	key := g.key(t)
	if g.cur != nil && key <= g.cur.key {
		return g.cur, nil
	}
	p := &period{key: key, tag: g.cfg.Segment.Tag, tmpl: g.p.template()}
	if g.keyWidth > 0 {
		p.tag += ":" + fmt.Sprintf("%0*d", g.keyWidth, key)
	}
	y, m, d, h := key, int64(0), int64(0), int64(0)
	switch g.period {
	case hour:
		y, m, d, h = key/1_000_000, key/10_000%100, key/100%100, key%100
	case day:
		y, m, d = key/10_000, key/100%100, key%100
	case month:
		y, m = key/100, key%100
	}
	date := map[kind]int64{year4: y, year2: y % 100, month: m, day: d, hour: h}
	for _, f := range g.p.fields {
		if v, ok := date[f.k]; ok && f.k != literal && f.k != seq {
			putDigits(p.tmpl[f.pos:f.pos+f.width], v)
		}
	}
	cfg := g.cfg.Segment
	cfg.Tag = p.tag
	var err error
	if p.g, err = segment.New(ctx, cfg); err != nil {
		return nil, fmt.Errorf("serial: pattern %q: %w", g.p.src, err)
	}
	if g.cur != nil {
		if err := g.cur.g.Close(); err != nil && cfg.Logger != nil {
			cfg.Logger.Warn("serial: giving back the numbers of an ended period failed", "tag", g.cur.tag, "err", err)
		}
	}
	g.cur = p
	return p, nil
}

// key returns the period t falls in, as its date's digits: 2026 for a
// yearly pattern, 2026112713 for an hourly one, 0 for a pattern with no
// date.
func (g *Segment) key(t time.Time) int64 {
	t = t.In(g.loc)
	y, m, d := t.Date()
	switch g.period {
	case year4:
		return int64(y)
	case month:
		return int64(y)*100 + int64(m)
	case day:
		return (int64(y)*100+int64(m))*100 + int64(d)
	case hour:
		return ((int64(y)*100+int64(m))*100+int64(d))*100 + int64(t.Hour())
	}
	return 0
}

// Close closes the current period's generator, which gives back the
// numbers it took and did not hand out (see segment's Close), and returns
// its error. Next then fails. Close is idempotent.
func (g *Segment) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	return g.cur.g.Close()
}
