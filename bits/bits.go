// Package bits lays out the fields of a UID in 64 bits. For Baidu's layouts
// it is Baidu's BitsAllocator, bit for bit, so Go and Java services can share
// one ID space. Programs read IDs with uidgen.Layout, which holds one:
//
//	a, err := bits.New(bits.Spec{TimeBits: 30, WorkerBits: 20, SeqBits: 13})
//	uid := a.Allocate(deltaSeconds, workerID, sequence)
//	deltaSeconds, workerID, sequence = a.Parse(uid)
//
//	 63  62 ..................... 62-T+1 ......... S+W-1 ........ S-1 ...... 0
//	+---+-----------------------------+-------------------+-----------------+
//	| 0 |  delta seconds (T bits)     | worker ID (W bits)| sequence (S bits)|
//	+---+-----------------------------+-------------------+-----------------+
//	sign  seconds since the epoch       from the Assigner   within the second
//
// 1 + T + W + S = 64 in Baidu's layouts. The sign bit is always 0 for an ID
// the Allocator makes, so every ID is positive. The sequence sits in the low
// bits, so the IDs of one second and one worker are consecutive integers.
//
// A layout may also fill fewer than 64 bits, the bits above them zero, so
// that every ID is below 2^(T+W+S+G) (52 bits keep every ID exact as a
// JavaScript number), and Spec.GeneBits adds what Baidu's Java does not: G
// gene bits below the sequence, copied from a shard key so that
// id % 2^G == key % 2^G:
//
//	| 0 ... 0 | delta seconds (T) | worker ID (W) | sequence (S) | gene (G) |
//
// Other Snowflakes lay their fields out otherwise, and a Spec says so too:
// sonyflake puts the sequence above the worker (its
// machine ID), so the IDs of one tick and one worker are 2^W apart:
//
//	| 0 | delta ticks (T) | sequence (S) | worker ID (W) | gene (G) |
//
// and Discord's and Instagram's fill all 64 bits with no sign bit. Their IDs
// read as int64 while the top bit is 0, so their time field's largest usable
// value is 2^(T-1) - 1: the one that keeps the top bit 0.
//
// An Allocator knows nothing of clocks, epochs or databases: it packs and
// unpacks numbers. What a unit of its time field is, a second or a
// millisecond, is the tick of the uidgen.Layout that holds it.
package bits

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// totalBits is the width of a UID; signBits of them are the always-zero
// sign. A Spec's NoSignBit says which a layout keeps.
const (
	totalBits = 64
	signBits  = 1
)

// ErrLayout: a layout is bad, whichever part: New's widths, uidgen's
// NewLayout's tick, NamedLayout's name, or an epoch a generator finds in the
// future. Each error wrapping it names the value and the limit.
var ErrLayout = errors.New("invalid bit layout")

// Allocator packs (delta seconds, worker ID, sequence, gene) into a UID and
// unpacks it again. It is immutable and safe for concurrent use.
type Allocator struct {
	spec Spec

	maxDelta, maxWorker, maxSeq, maxGene int64
	timeShift, workerShift, seqShift     uint
}

// Spec describes a layout for New: the widths of its fields, their order
// and whether it keeps a sign bit. Its zero order and sign are Baidu's: the
// worker above the sequence, and an always-zero sign bit.
type Spec struct {
	// TimeBits, WorkerBits and SeqBits are the widths of the time, worker
	// (node, machine) and sequence fields, each at least 1; GeneBits is the
	// width of the gene field below them all, at least 0.
	TimeBits, WorkerBits, SeqBits, GeneBits int
	// SeqAboveWorker puts the sequence above the worker field, as
	// sonyflake does; false keeps Baidu's and Twitter's order, the worker
	// above the sequence.
	SeqAboveWorker bool
	// NoSignBit makes the fields fill all 64 bits with no sign bit, as
	// Discord's and Instagram's do: the widths must then add up to 64, and
	// MaxDelta is 2^(TimeBits-1) - 1 so that IDs stay positive int64s.
	// False keeps the sign bit: the widths add up to at most 63.
	NoSignBit bool
}

// New returns the Allocator of the layout s describes. The time, worker
// and sequence fields must each be at least 1 bit wide and the gene at least
// 0; with the sign bit they must fit in 64 bits (Baidu's layouts fill all
// 64; a layout of fewer keeps the bits above it zero), and with s.NoSignBit
// they must fill exactly 64. A bad layout is an error wrapping ErrLayout
// that names the widths and the limit.
func New(s Spec) (*Allocator, error) {
	if err := checkWidths(s.TimeBits, s.WorkerBits, s.SeqBits, s.GeneBits); err != nil {
		return nil, err
	}
	sum := s.TimeBits + s.WorkerBits + s.SeqBits + s.GeneBits
	if s.NoSignBit && sum != totalBits {
		return nil, fmt.Errorf("%w: no sign bit: %s bits = %d, want exactly %d",
			ErrLayout, s.fields(), sum, totalBits)
	}
	if !s.NoSignBit && signBits+sum > totalBits {
		return nil, fmt.Errorf("%w: 1 sign + %s bits = %d: want at most %d",
			ErrLayout, s.fields(), signBits+sum, totalBits)
	}
	return newAllocator(s), nil
}

// fields names the widths in their order, as "time 39 + sequence 8 +
// worker 16".
func (s Spec) fields() string {
	f := fmt.Sprintf("time %d + worker %d + sequence %d", s.TimeBits, s.WorkerBits, s.SeqBits)
	if s.SeqAboveWorker {
		f = fmt.Sprintf("time %d + sequence %d + worker %d", s.TimeBits, s.SeqBits, s.WorkerBits)
	}
	if s.GeneBits > 0 {
		f += fmt.Sprintf(" + gene %d", s.GeneBits)
	}
	return f
}

// checkWidths returns an error unless the three fields are at least a bit
// wide and the gene at least none.
func checkWidths(timeBits, workerBits, seqBits, geneBits int) error {
	if timeBits < 1 || workerBits < 1 || seqBits < 1 || geneBits < 0 {
		return fmt.Errorf("%w: time %d, worker %d, sequence %d, gene %d bits: each of the first three must be at least 1, the gene at least 0",
			ErrLayout, timeBits, workerBits, seqBits, geneBits)
	}
	return nil
}

// newAllocator precomputes the shifts of a valid layout, so that Allocate
// and Parse are the same few shifts whatever the fields' order.
func newAllocator(s Spec) *Allocator {
	a := &Allocator{
		spec:        s,
		maxDelta:    ^(-1 << s.TimeBits),
		maxWorker:   ^(-1 << s.WorkerBits),
		maxSeq:      ^(-1 << s.SeqBits),
		maxGene:     ^(-1 << s.GeneBits),
		timeShift:   uint(s.WorkerBits + s.SeqBits + s.GeneBits),
		workerShift: uint(s.SeqBits + s.GeneBits),
		seqShift:    uint(s.GeneBits),
	}
	if s.SeqAboveWorker {
		a.workerShift, a.seqShift = uint(s.GeneBits), uint(s.WorkerBits+s.GeneBits)
	}
	if s.NoSignBit {
		a.maxDelta >>= 1 // the time field's top bit is the int64's sign
	}
	return a
}

// Spec returns the layout's widths, order and sign, as given to New.
func (a *Allocator) Spec() Spec { return a.spec }

// usedBits returns the bits below the always-zero ones, the sum of the
// Spec's widths: every UID the Allocator makes is below 2^usedBits. 63 for
// Baidu's layouts, 64 for a layout with no sign bit (whose UIDs are below
// 2^63 all the same, as MaxDelta keeps the top bit 0).
func (a *Allocator) usedBits() int {
	return a.spec.TimeBits + a.spec.WorkerBits + a.spec.SeqBits + a.spec.GeneBits
}

// MaxDelta returns the largest value of the time field, in ticks since the
// epoch, that keeps a UID a positive int64: 2^timeBits - 1, or with no sign
// bit 2^(timeBits-1) - 1.
func (a *Allocator) MaxDelta() int64 { return a.maxDelta }

// MaxWorkerID returns the largest worker ID the layout holds:
// 2^workerBits - 1.
func (a *Allocator) MaxWorkerID() int64 { return a.maxWorker }

// MaxSequence returns the largest sequence the layout holds: 2^seqBits - 1.
// A second holds MaxSequence()+1 IDs per worker.
func (a *Allocator) MaxSequence() int64 { return a.maxSeq }

// MaxGene returns the largest gene the layout holds: 2^geneBits - 1, the
// mask of the gene's bits.
func (a *Allocator) MaxGene() int64 { return a.maxGene }

// Allocate packs the three fields into a UID, with gene 0: bit for bit
// Baidu's BitsAllocator.allocate on Baidu's layouts. The fields are ORed
// together unmasked, so the caller keeps each within its maximum.
// Generators check that before they call; Allocate itself is a hot path and
// does not.
func (a *Allocator) Allocate(deltaSeconds, workerID, sequence int64) int64 {
	return deltaSeconds<<a.timeShift | workerID<<a.workerShift | sequence<<a.seqShift
}

// Parse unpacks a UID into its fields. On Baidu's layouts it gives what
// Baidu's DefaultUidGenerator.parseUID gives: Java's >>> is an unsigned
// shift, so Parse shifts as uint64 and gives Java's answer for any int64,
// negative ones included (their sign bit lands in deltaSeconds, as in Java).
// Gene returns the fourth field.
func (a *Allocator) Parse(uid int64) (deltaSeconds, workerID, sequence int64) {
	u := uint64(uid)
	sequence = int64(u>>a.seqShift) & a.maxSeq
	workerID = int64(u>>a.workerShift) & a.maxWorker
	deltaSeconds = int64(u >> a.timeShift)
	return deltaSeconds, workerID, sequence
}

// Gene returns uid's gene field: its low GeneBits bits.
func (a *Allocator) Gene(uid int64) int64 { return uid & a.maxGene }

// String describes the layout from its top bit down, as "1+30+20+13 bits
// (sign+time+worker+sequence)", with gene bits "1+31+8+13+4 bits
// (sign+time+worker+sequence+gene)", with the sequence above the worker
// "1+39+8+16 bits (sign+time+sequence+worker)", with no sign bit "42+10+12
// bits (time+worker+sequence)", and for a layout of fewer than 64 bits what
// its IDs stay below.
func (a *Allocator) String() string {
	s := a.spec
	widths := []int{signBits, s.TimeBits, s.WorkerBits, s.SeqBits, s.GeneBits}
	names := []string{"sign", "time", "worker", "sequence", "gene"}
	if s.SeqAboveWorker {
		widths[2], widths[3], names[2], names[3] = widths[3], widths[2], names[3], names[2]
	}
	if s.GeneBits == 0 {
		widths, names = widths[:4], names[:4]
	}
	if s.NoSignBit {
		widths, names = widths[1:], names[1:]
	}
	nums := make([]string, len(widths))
	for i, w := range widths {
		nums[i] = strconv.Itoa(w)
	}
	str := fmt.Sprintf("%s bits (%s)", strings.Join(nums, "+"), strings.Join(names, "+"))
	if used := a.usedBits(); used < totalBits-signBits {
		str += fmt.Sprintf(", IDs below 2^%d", used)
	}
	return str
}
