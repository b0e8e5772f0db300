// Package bits lays out the fields of a UID in 64 bits. For Baidu's layouts
// it is Baidu's BitsAllocator, bit for bit, so Go and Java services can share
// one ID space. Programs read IDs with uidgen.Layout, which holds one:
//
//	a, err := bits.New(30, 20, 13) // time, worker and sequence bits
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
// JavaScript number), and NewGene adds what Baidu's Java does not: G gene
// bits below the sequence, copied from a shard key so that
// id % 2^G == key % 2^G:
//
//	| 0 ... 0 | delta seconds (T) | worker ID (W) | sequence (S) | gene (G) |
//
// An Allocator knows nothing of clocks, epochs or databases: it packs and
// unpacks numbers.
package bits

import (
	"errors"
	"fmt"
)

// TotalBits is the width of a UID; SignBits of them are the always-zero sign.
const (
	TotalBits = 64
	SignBits  = 1
)

// ErrLayout is wrapped by every error New and NewGene return for a bad
// layout.
var ErrLayout = errors.New("invalid bit layout")

// Allocator packs (delta seconds, worker ID, sequence, gene) into a UID and
// unpacks it again. It is immutable and safe for concurrent use.
type Allocator struct {
	timeBits, workerBits, seqBits, geneBits int

	maxDelta, maxWorker, maxSeq, maxGene int64
	timeShift, workerShift, seqShift     uint
}

// New returns the Allocator for timeBits + workerBits + seqBits: NewGene
// with no gene bits. Baidu's layouts are those that fill all 64 bits.
func New(timeBits, workerBits, seqBits int) (*Allocator, error) {
	return NewGene(timeBits, workerBits, seqBits, 0)
}

// NewGene returns the Allocator of a layout that may end in geneBits gene
// bits below the sequence and may use fewer than 64 bits: timeBits,
// workerBits and seqBits must each be at least 1, geneBits at least 0, and
// with the sign bit they must fit in 64. A bad layout is an error wrapping
// ErrLayout that names the values and the limit.
func NewGene(timeBits, workerBits, seqBits, geneBits int) (*Allocator, error) {
	if err := checkWidths(timeBits, workerBits, seqBits, geneBits); err != nil {
		return nil, err
	}
	if sum := SignBits + timeBits + workerBits + seqBits + geneBits; sum > TotalBits {
		gene := ""
		if geneBits > 0 {
			gene = fmt.Sprintf(" + gene %d", geneBits)
		}
		return nil, fmt.Errorf("%w: 1 sign + time %d + worker %d + sequence %d%s bits = %d, more than %d",
			ErrLayout, timeBits, workerBits, seqBits, gene, sum, TotalBits)
	}
	return newAllocator(timeBits, workerBits, seqBits, geneBits), nil
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

func newAllocator(timeBits, workerBits, seqBits, geneBits int) *Allocator {
	return &Allocator{
		timeBits:    timeBits,
		workerBits:  workerBits,
		seqBits:     seqBits,
		geneBits:    geneBits,
		maxDelta:    ^(-1 << timeBits),
		maxWorker:   ^(-1 << workerBits),
		maxSeq:      ^(-1 << seqBits),
		maxGene:     ^(-1 << geneBits),
		timeShift:   uint(workerBits + seqBits + geneBits),
		workerShift: uint(seqBits + geneBits),
		seqShift:    uint(geneBits),
	}
}

// TimeBits returns the width of the delta-seconds field.
func (a *Allocator) TimeBits() int { return a.timeBits }

// WorkerBits returns the width of the worker-ID field.
func (a *Allocator) WorkerBits() int { return a.workerBits }

// SeqBits returns the width of the sequence field.
func (a *Allocator) SeqBits() int { return a.seqBits }

// GeneBits returns the width of the gene field: 0 for Baidu's layouts.
func (a *Allocator) GeneBits() int { return a.geneBits }

// UsedBits returns the bits below the always-zero ones: every UID the
// Allocator makes is below 2^UsedBits. 63 for Baidu's layouts.
func (a *Allocator) UsedBits() int { return a.timeBits + a.workerBits + a.seqBits + a.geneBits }

// MaxDeltaSeconds returns the largest delta seconds the layout holds:
// 2^timeBits - 1.
func (a *Allocator) MaxDeltaSeconds() int64 { return a.maxDelta }

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

// String describes the layout, as "1+30+20+13 bits (sign+time+worker+sequence)",
// or with gene bits "1+31+8+13+4 bits (sign+time+worker+sequence+gene)", and
// for a layout of fewer than 64 bits what its IDs stay below.
func (a *Allocator) String() string {
	s := fmt.Sprintf("%d+%d+%d+%d bits (sign+time+worker+sequence)", SignBits, a.timeBits, a.workerBits, a.seqBits)
	if a.geneBits > 0 {
		s = fmt.Sprintf("%d+%d+%d+%d+%d bits (sign+time+worker+sequence+gene)", SignBits, a.timeBits, a.workerBits, a.seqBits, a.geneBits)
	}
	if used := a.UsedBits(); used < TotalBits-SignBits {
		s += fmt.Sprintf(", IDs below 2^%d", used)
	}
	return s
}
