package serial

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
)

// Snowflake writes the IDs of one layout through a pattern, and reads the
// strings back: the time, worker and sequence fields are the ID's own, so
// the strings are as unique as the IDs, all of one width, sort as the IDs
// do (bytewise), and Parse gives back the ID each came from.
//
// A Snowflake is immutable and safe for concurrent use.
type Snowflake struct {
	p    *pattern
	tmpl []byte // the pattern's literals, and zeros where its fields go
	bits *bits.Allocator
	// epochMs is the layout's epoch in Unix milliseconds plus the zone's
	// one offset, so that local times are epochMs + ticks*tickMs.
	epochMs, tickMs, offsetMs int64
	// times are the pattern's time fields, coarsest first; worker and
	// seq its two numbers.
	times       []field
	worker, seq field
	numbers     []slot // times, worker and seq: the fields Append writes

	// lastDay caches civil for the day Append formatted last, as the day
	// (since 1970-01-01) << 32 | year << 9 | month << 5 | day. Any Append
	// writes it, any reads it; each value is whole, so a stale one is
	// only a miss. It makes a day's IDs skip the calendar arithmetic.
	lastDay atomic.Uint64
}

// slot is where Append writes a number: k's value, in width digits at pos.
type slot struct {
	k          kind
	pos, width int32
}

// NewSnowflake returns the Snowflake that writes the IDs of layout l
// through pattern, the time in zone loc (nil means UTC). It fails with an
// error wrapping uidgen.ErrConfig that names the pattern and the fault: a
// pattern that does not parse, or one that cannot hold every ID of l,
// naming what is missing:
//
//   - no {worker:N}, or N too few digits for l's largest worker ID; the
//     same for {seq:N} and the largest sequence;
//   - a time field missing between {yyyy} and the finest that l's times
//     need: {ss} for whole-second ticks from a whole-second epoch, {SSS}
//     otherwise; {yy} in place of {yyyy}, which cannot read back;
//   - a tick that is not a whole number of the finest field's unit (62.5ms
//     with {SSS}), for its times would not read back;
//   - fields out of the ID's order: the time fields coarsest first, then
//     the worker and sequence in the order of l's bits (sonyflake's
//     sequence above its worker), for the strings would not sort as the IDs;
//   - gene bits in l, for no field holds them;
//   - l's years outside 0 to 9999, which {yyyy} cannot hold.
//
// A zone whose UTC offset changes between l's epoch and the time its IDs
// run out (daylight saving time) is refused too, naming the zone and the
// change: its clocks repeat an hour, so two IDs would make one string.
func NewSnowflake(pattern string, l uidgen.Layout, loc *time.Location) (*Snowflake, error) {
	p, err := parsePattern(pattern)
	if err != nil {
		return nil, err
	}
	if l.Bits() == nil {
		return nil, fmt.Errorf("serial: %w: pattern %q: the layout is the zero Layout, which has no fields", uidgen.ErrConfig, pattern)
	}
	if loc == nil {
		loc = time.UTC
	}
	f := &fit{p: p, l: l, loc: loc}
	for _, check := range f.checks() {
		if err := check(); err != nil {
			return nil, err
		}
	}
	s := &Snowflake{p: p, tmpl: p.template(), bits: l.Bits(), tickMs: l.Tick().Milliseconds(), times: f.times}
	s.worker, _ = p.field(worker)
	s.seq, _ = p.field(seq)
	for _, nf := range f.numbers {
		s.numbers = append(s.numbers, slot{nf.k, int32(nf.pos), int32(nf.width)})
	}
	s.lastDay.Store(cacheDay(0))
	s.offsetMs = int64(f.offset) * 1000
	s.epochMs = l.Epoch().UnixMilli() + s.offsetMs
	return s, nil
}

// fixedOffset returns loc's offset from UTC in seconds from from to to, or
// an error saying where it changes between them.
func fixedOffset(loc *time.Location, from, to time.Time) (int, error) {
	t := from.In(loc)
	name, off := t.Zone()
	for {
		_, end := t.ZoneBounds()
		if end.IsZero() || !end.Before(to) {
			return off, nil
		}
		t = end.In(loc)
		if n, o := t.Zone(); o != off {
			return 0, fmt.Errorf("it goes from %s (UTC%+.1fh) to %s (UTC%+.1fh) at %v, within the layout's times, "+
				"so its clock repeats or skips times and strings would repeat or sort out of order: use a zone of one offset, such as UTC",
				name, float64(off)/3600, n, float64(o)/3600, end.UTC().Format(time.RFC3339))
		}
	}
}

// fieldName names the time field of kind k as a pattern writes it.
func fieldName(k kind) string {
	for name, t := range timeFields {
		if t.k == k {
			return "{" + name + "}"
		}
	}
	return ""
}

// timeChain is the time fields from {yyyy} down to finest.
func timeChain(finest kind) string {
	var b strings.Builder
	for k := year4; k <= finest; k++ {
		if k != year2 {
			b.WriteString(fieldName(k))
		}
	}
	return b.String()
}

// Format returns the string of id. It allocates the string and nothing
// else. An int64 that is no ID of the layout (negative, or past the time
// its IDs run out) still makes a string of the pattern's width, which
// Parse may refuse.
func (s *Snowflake) Format(id int64) string {
	var buf [64]byte
	return string(s.Append(buf[:0], id))
}

// Append appends the string of id to dst, as Format writes it, and returns
// the longer slice.
func (s *Snowflake) Append(dst []byte, id int64) []byte {
	n := len(dst)
	dst = append(dst, s.tmpl...)
	b := dst[n:]
	delta, w, q := s.bits.Parse(id)
	ms := s.epochMs + delta*s.tickMs
	days := floorDiv(ms, 86_400_000)
	ms -= days * 86_400_000
	var v [16]int64 // by kind; 16 so that k&15 needs no bounds check
	if c := s.lastDay.Load(); int64(int32(c>>32)) == days {
		v[year4], v[month], v[day] = int64(c>>9&0x7fff), int64(c>>5&0xf), int64(c&0x1f)
	} else {
		v[year4], v[month], v[day] = civil(days)
		if days == int64(int32(days)) && v[year4] >= 0 && v[year4] <= 9999 {
			s.lastDay.Store(cacheDay(days))
		}
	}
	v[hour], v[minute], v[second], v[milli] = ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000
	v[worker], v[seq] = w, q
	for _, f := range s.numbers {
		putDigits(b[f.pos:f.pos+f.width], v[f.k&15])
	}
	return dst
}

// cacheDay returns lastDay's value for days, which fits an int32, of a
// year from 0 to 9999.
func cacheDay(days int64) uint64 {
	y, m, d := civil(days)
	return uint64(uint32(int32(days)))<<32 | uint64(y)<<9 | uint64(m)<<5 | uint64(d)
}

// Parse returns the ID whose string str is. It fails, wrapping
// uidgen.ErrIDSyntax, for a string of another width, a literal that
// differs from the pattern's, a field that is not all digits or names no
// date or time (month 13, February 30), or a time that falls between the
// layout's ticks; and, wrapping uidgen.ErrIDRange, for a time before the
// epoch or past the layout's last tick, or a worker or sequence past the
// layout's largest. It never panics, whatever the text.
func (s *Snowflake) Parse(str string) (int64, error) {
	vals, err := s.readFields(str)
	if err != nil {
		return 0, err
	}
	y, m, d := vals[year4], vals[month], vals[day]
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) || vals[hour] > 23 || vals[minute] > 59 || vals[second] > 59 {
		return 0, s.parseError(uidgen.ErrIDSyntax, str, "%04d-%02d-%02d %02d:%02d:%02d is no date and time",
			y, m, d, vals[hour], vals[minute], vals[second])
	}
	ms := daysFrom(y, m, d)*86_400_000 + vals[hour]*3_600_000 + vals[minute]*60_000 + vals[second]*1000 + vals[milli] - s.epochMs
	if ms%s.tickMs != 0 && ms >= 0 {
		return 0, s.parseError(uidgen.ErrIDSyntax, str, "its time is not on one of the layout's %dms ticks", s.tickMs)
	}
	switch w, q := vals[worker], vals[seq]; {
	case ms < 0:
		return 0, s.parseError(uidgen.ErrIDRange, str, "its time is before the layout's epoch")
	case ms/s.tickMs > s.bits.MaxDelta():
		return 0, s.parseError(uidgen.ErrIDRange, str, "its time is past the layout's last tick")
	case w > s.bits.MaxWorkerID():
		return 0, s.parseError(uidgen.ErrIDRange, str, "worker %d is past the layout's largest, %d", w, s.bits.MaxWorkerID())
	case q > s.bits.MaxSequence():
		return 0, s.parseError(uidgen.ErrIDRange, str, "sequence %d is past the layout's largest, %d", q, s.bits.MaxSequence())
	default:
		return s.bits.Allocate(ms/s.tickMs, w, q), nil
	}
}

// readFields returns the numbers of str's fields, by kind, after checking
// its width and literals: Parse's checks of the text, before those of the
// time and numbers it names.
func (s *Snowflake) readFields(str string) (vals [seq + 1]int64, err error) {
	if len(str) != len(s.tmpl) {
		return vals, s.parseError(uidgen.ErrIDSyntax, str, "%d bytes, want %d", len(str), len(s.tmpl))
	}
	for _, f := range s.p.fields {
		part := str[f.pos : f.pos+f.width]
		if f.k == literal {
			if part != f.text {
				return vals, s.parseError(uidgen.ErrIDSyntax, str, "%q at byte %d, want %q", part, f.pos, f.text)
			}
			continue
		}
		var v int64
		for i := range len(part) {
			c := part[i]
			if c < '0' || c > '9' {
				return vals, s.parseError(uidgen.ErrIDSyntax, str, "%s is %q, not %d digits", f.name, part, f.width)
			}
			v = v*10 + int64(c-'0')
		}
		vals[f.k] = v
	}
	return vals, nil
}

// parseError returns Parse's error: sentinel, str (cut to 64 bytes), the
// pattern and why.
func (s *Snowflake) parseError(sentinel error, str, format string, args ...any) error {
	if len(str) > 64 {
		str = str[:64] + "..."
	}
	return fmt.Errorf("serial: %w: %q is not a string of pattern %q: %s", sentinel, str, s.p.src, fmt.Sprintf(format, args...))
}
