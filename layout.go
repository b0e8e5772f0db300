package uidgen

import (
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen/bits"
)

// Layout is a UID's bit layout, tick and epoch: all that reading an ID
// needs. Its time field counts ticks (a second in Baidu's layouts, a
// millisecond in Twitter's) since the epoch. It knows no clock and no
// worker, so it reads IDs of layouts whose time bits ran out long ago, such
// as Baidu's defaults (28/22/13 bits from 2016-05-20, spent on 2024-11-20).
//
// A Layout is an immutable value, safe for concurrent use. Build one with
// NewLayout, NamedLayout or DefaultLayout; the zero Layout reads nothing
// meaningful, and in a generator's Config means DefaultLayout.
type Layout struct {
	bits  *bits.Allocator
	tick  time.Duration // at least a millisecond, and divides a second
	epoch time.Time     // whole millisecond
	// epochSec and epochNsec are the epoch as Unix seconds and the
	// nanoseconds after them, and perSecond the ticks in a second, so that
	// a per-second layout's times are time.Unix(epochSec+delta, 0) exactly,
	// as Baidu's are.
	epochSec, epochNsec, perSecond int64
}

// NewLayout returns the layout s describes, whose time field counts ticks
// of tick since epoch, truncated to the millisecond: Baidu's layouts count
// seconds from a date, Twitter's milliseconds from 1288834974657 ms, and
// sonyflake's 10 ms from 2025-01-01. The tick must be at least a millisecond
// and divide a second (1 ms, 10 ms, 250 ms, 1 s, ...), or the error wraps
// bits.ErrLayout and names it; a bad s is an error wrapping bits.ErrLayout
// that names the widths and the limit, as from bits.New. Any epoch is accepted:
// a layout only reads and packs numbers. Both generators make IDs in it
// through their Config's Layout.
func NewLayout(s bits.Spec, tick time.Duration, epoch time.Time) (Layout, error) {
	if tick < time.Millisecond || time.Second%tick != 0 {
		return Layout{}, fmt.Errorf("uidgen: %w: tick %v: want at least 1ms, dividing 1s (1ms, 10ms, 250ms, 1s, ...)", bits.ErrLayout, tick)
	}
	a, err := bits.New(s)
	if err != nil {
		return Layout{}, fmt.Errorf("uidgen: %w", err)
	}
	epoch = epoch.Truncate(time.Millisecond)
	return Layout{bits: a, tick: tick, epoch: epoch, epochSec: epoch.Unix(), epochNsec: int64(epoch.Nanosecond()),
		perSecond: int64(time.Second / tick)}, nil
}

// defaultLayout is DefaultLayout's, and NamedLayout's "uidgen".
var defaultLayout = namedLayout{bits.Spec{TimeBits: 30, WorkerBits: 20, SeqBits: 13}, time.Second,
	time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)}

// DefaultLayout returns the layout a generator's zero Config uses, which
// NamedLayout calls "uidgen": 1 sign + 30 time + 20 worker + 13 sequence
// bits in seconds from 2025-01-01 00:00:00 UTC. 2^30 seconds is 34 years
// (to January 2059); 2^20-1 worker IDs is a fleet of 1,000 processes each
// restarting every ten days for 28 years; 2^13 = 8,192 IDs per second per
// worker. The README shows the arithmetic.
func DefaultLayout() Layout {
	l, err := defaultLayout.layout()
	if err != nil {
		panic(err) // the default is a valid layout; TestDefaultLayout holds it to it
	}
	return l
}

// Bits returns the layout's bit arithmetic: the field widths and maxima,
// Allocate and Parse.
func (l Layout) Bits() *bits.Allocator { return l.bits }

// Tick returns the unit of the time field: a second in Baidu's layouts.
func (l Layout) Tick() time.Duration { return l.tick }

// Epoch returns the instant the time field counts ticks from, to the
// millisecond.
func (l Layout) Epoch() time.Time { return l.epoch }

// RunsOut returns the first instant whose tick no longer fits the time
// field: Epoch + (MaxDelta+1) ticks, which is 2^TimeBits ticks with a sign
// bit and 2^(TimeBits-1) without.
func (l Layout) RunsOut() time.Time { return l.TimeOf(l.bits.MaxDelta() + 1) }

// TimeOf returns the instant tick number ticks since the epoch starts at,
// in the local time zone; ticks may be negative. It counts whole seconds
// and the ticks after them apart, so no product of ticks and the tick
// overflows.
func (l Layout) TimeOf(ticks int64) time.Time {
	return time.Unix(l.epochSec+ticks/l.perSecond, l.epochNsec+ticks%l.perSecond*int64(l.tick))
}

// TickOf returns the tick t falls in, counted from the epoch: negative
// before it. TimeOf(TickOf(t)) is t rounded down to its tick.
func (l Layout) TickOf(t time.Time) int64 {
	sec, nsec := t.Unix()-l.epochSec, int64(t.Nanosecond())-l.epochNsec
	if nsec < 0 {
		sec, nsec = sec-1, nsec+int64(time.Second)
	}
	return sec*l.perSecond + nsec/int64(l.tick)
}

// Parse takes uid apart. Any int64 parses, as in Baidu's Java, though only
// IDs made with this layout mean anything. Time is Epoch + the time field's
// ticks, in the local zone.
func (l Layout) Parse(uid int64) ID {
	delta, workerID, seq := l.bits.Parse(uid)
	return ID{UID: uid, Time: l.TimeOf(delta), WorkerID: workerID, Sequence: seq, Gene: l.bits.Gene(uid)}
}

// Java's "yyyy-MM-dd HH:mm:ss" and "yyyy-MM-dd HH:mm:ss.SSS".
const (
	baiduTimeLayout  = "2006-01-02 15:04:05"
	millisTimeLayout = "2006-01-02 15:04:05.000"
)

// ParseUID returns Baidu's string form of uid, the timestamp in the local
// zone as Java's formatter gives it:
//
//	{"UID":"%d","timestamp":"yyyy-MM-dd HH:mm:ss","workerId":"%d","sequence":"%d"}
//
// A layout whose tick is shorter than a second gives the timestamp to the
// millisecond, "yyyy-MM-dd HH:mm:ss.SSS". A layout with gene bits adds the
// gene: ...,"sequence":"%d","gene":"%d"}.
func (l Layout) ParseUID(uid int64) string { return l.ParseUIDIn(uid, time.Local) }

// ParseUIDIn is ParseUID with the timestamp in zone loc, as Java's
// formatter gives it after setTimeZone: the string names no zone, so a
// reader in another zone, or of a serial number's dates, picks the one it
// reads them in.
func (l Layout) ParseUIDIn(uid int64, loc *time.Location) string {
	id := l.Parse(uid)
	id.Time = id.Time.In(loc)
	format := baiduTimeLayout
	if l.tick < time.Second {
		format = millisTimeLayout
	}
	tail := ""
	if l.bits.Spec().GeneBits > 0 {
		tail = fmt.Sprintf(`,"gene":"%d"`, id.Gene)
	}
	return fmt.Sprintf(`{"UID":"%d","timestamp":"%s","workerId":"%d","sequence":"%d"%s}`,
		id.UID, id.Time.Format(format), id.WorkerID, id.Sequence, tail)
}

// String describes the layout, as "1+30+20+13 bits (sign+time+worker+sequence)
// from 2025-01-01 00:00:00 UTC", or for a tick other than a second "1+41+10+12
// bits (sign+time+worker+sequence) in 1ms ticks from 2010-11-04 01:42:54.657 UTC".
func (l Layout) String() string {
	ticks := ""
	if l.tick != time.Second {
		ticks = fmt.Sprintf(" in %v ticks", l.tick)
	}
	return fmt.Sprintf("%v%s from %s", l.bits, ticks, l.epoch.Format("2006-01-02 15:04:05.999 MST"))
}
