package uidgen

import (
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen/bits"
)

// The default layout: 1 sign + 30 time + 20 worker + 13 sequence bits from
// DefaultEpoch. 2^30 seconds is 34 years (to January 2059); 2^20-1 worker IDs
// is a fleet of 1,000 processes each restarting every ten days for 28 years;
// 2^13 = 8,192 IDs per second per worker. The README shows the arithmetic.
const (
	DefaultTimeBits   = 30
	DefaultWorkerBits = 20
	DefaultSeqBits    = 13
)

// DefaultEpoch is the epoch of the default layout: 2025-01-01 00:00:00 UTC.
var DefaultEpoch = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// Layout is a UID's bit layout and epoch: all that reading an ID needs. It
// knows no clock and no worker, so it reads IDs of layouts whose time bits
// ran out long ago, such as Baidu's defaults (28/22/13 bits from
// 2016-05-20, spent on 2024-11-20).
//
// A Layout is an immutable value, safe for concurrent use. Build one with
// NewLayout or DefaultLayout; the zero Layout reads nothing meaningful.
type Layout struct {
	bits     *bits.Allocator
	epoch    time.Time // whole second
	epochSec int64     // epoch as Unix seconds
}

// NewLayout returns the layout of timeBits + workerBits + seqBits from
// epoch, truncated to the second. The widths must each be at least 1 and
// fit, with the sign bit, in 64 bits; Baidu's layouts fill all 64, and a
// layout of fewer keeps the bits above it zero (see package bits).
// Otherwise the error wraps bits.ErrLayout and names the widths. Any epoch
// is accepted: a layout only reads and packs numbers.
func NewLayout(timeBits, workerBits, seqBits int, epoch time.Time) (Layout, error) {
	return NewGeneLayout(timeBits, workerBits, seqBits, 0, epoch)
}

// NewGeneLayout is NewLayout with geneBits gene bits below the sequence: the
// low bits that a generator's NextIDFor copies from a shard key.
func NewGeneLayout(timeBits, workerBits, seqBits, geneBits int, epoch time.Time) (Layout, error) {
	a, err := bits.NewGene(timeBits, workerBits, seqBits, geneBits)
	if err != nil {
		return Layout{}, err
	}
	epoch = epoch.Truncate(time.Second)
	return Layout{bits: a, epoch: epoch, epochSec: epoch.Unix()}, nil
}

// DefaultLayout returns the layout of DefaultTimeBits, DefaultWorkerBits and
// DefaultSeqBits from DefaultEpoch: what a generator's zero Config uses.
func DefaultLayout() Layout {
	l, err := NewLayout(DefaultTimeBits, DefaultWorkerBits, DefaultSeqBits, DefaultEpoch)
	if err != nil {
		panic(err) // the defaults are a valid layout; TestDefaultLayout holds them to it
	}
	return l
}

// Bits returns the layout's bit arithmetic: the field widths and maxima,
// Allocate and Parse.
func (l Layout) Bits() *bits.Allocator { return l.bits }

// Epoch returns the instant delta seconds count from, truncated to the
// second.
func (l Layout) Epoch() time.Time { return l.epoch }

// RunsOut returns the first instant whose second no longer fits the time
// bits: Epoch + 2^TimeBits seconds.
func (l Layout) RunsOut() time.Time { return l.timeOf(l.bits.MaxDeltaSeconds() + 1) }

// timeOf returns the instant that delta seconds since the epoch stand for,
// in the local time zone.
func (l Layout) timeOf(delta int64) time.Time { return time.Unix(l.epochSec+delta, 0) }

// Parse takes uid apart. Any int64 parses, as in Baidu's Java, though only
// IDs made with this layout mean anything.
func (l Layout) Parse(uid int64) ID {
	delta, workerID, seq := l.bits.Parse(uid)
	return ID{UID: uid, Time: l.timeOf(delta), WorkerID: workerID, Sequence: seq, Gene: l.bits.Gene(uid)}
}

// ParseUID returns Baidu's string form of uid, the timestamp in the local
// zone as Java's formatter gives it:
//
//	{"UID":"%d","timestamp":"yyyy-MM-dd HH:mm:ss","workerId":"%d","sequence":"%d"}
//
// A layout with gene bits adds the gene: ...,"sequence":"%d","gene":"%d"}.
func (l Layout) ParseUID(uid int64) string {
	id := l.Parse(uid)
	if l.bits.GeneBits() == 0 {
		return id.String()
	}
	return id.baidu(fmt.Sprintf(`,"gene":"%d"`, id.Gene))
}

// String describes the layout, as "1+30+20+13 bits (sign+time+worker+sequence)
// from 2025-01-01 00:00:00 UTC".
func (l Layout) String() string {
	return fmt.Sprintf("%v from %s", l.bits, l.epoch.Format("2006-01-02 15:04:05 MST"))
}
