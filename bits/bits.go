// Package bits lays out the three fields of a UID in 64 bits, exactly as
// Baidu's BitsAllocator does, so Go and Java services can share one ID space:
//
//	 63  62 ..................... 62-T+1 ......... S+W-1 ........ S-1 ...... 0
//	+---+-----------------------------+-------------------+-----------------+
//	| 0 |  delta seconds (T bits)     | worker ID (W bits)| sequence (S bits)|
//	+---+-----------------------------+-------------------+-----------------+
//	sign  seconds since the epoch       from the Assigner   within the second
//
// 1 + T + W + S = 64. The sign bit is always 0 for an ID the Allocator
// makes, so every ID is positive. The sequence sits in the low bits, so the
// IDs of one second and one worker are consecutive integers.
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

// ErrLayout is wrapped by every error New returns for a bad layout.
var ErrLayout = errors.New("invalid bit layout")

// Allocator packs (delta seconds, worker ID, sequence) into a UID and unpacks
// it again. It is immutable and safe for concurrent use.
type Allocator struct {
	timeBits, workerBits, seqBits int

	maxDelta, maxWorker, maxSeq int64
	timeShift, workerShift      uint
}

// New returns an Allocator for timeBits + workerBits + seqBits, which must
// each be at least 1 and add up, with the sign bit, to 64. Otherwise the
// error wraps ErrLayout and names the three values.
func New(timeBits, workerBits, seqBits int) (*Allocator, error) {
	if timeBits < 1 || workerBits < 1 || seqBits < 1 {
		return nil, fmt.Errorf("%w: time %d, worker %d, sequence %d bits: each must be at least 1",
			ErrLayout, timeBits, workerBits, seqBits)
	}
	if sum := SignBits + timeBits + workerBits + seqBits; sum != TotalBits {
		return nil, fmt.Errorf("%w: 1 sign + time %d + worker %d + sequence %d bits = %d, must be %d",
			ErrLayout, timeBits, workerBits, seqBits, sum, TotalBits)
	}
	return &Allocator{
		timeBits:    timeBits,
		workerBits:  workerBits,
		seqBits:     seqBits,
		maxDelta:    ^(-1 << timeBits),
		maxWorker:   ^(-1 << workerBits),
		maxSeq:      ^(-1 << seqBits),
		timeShift:   uint(workerBits + seqBits),
		workerShift: uint(seqBits),
	}, nil
}

// TimeBits returns the width of the delta-seconds field.
func (a *Allocator) TimeBits() int { return a.timeBits }

// WorkerBits returns the width of the worker-ID field.
func (a *Allocator) WorkerBits() int { return a.workerBits }

// SeqBits returns the width of the sequence field.
func (a *Allocator) SeqBits() int { return a.seqBits }

// MaxDeltaSeconds returns the largest delta seconds the layout holds:
// 2^timeBits - 1.
func (a *Allocator) MaxDeltaSeconds() int64 { return a.maxDelta }

// MaxWorkerID returns the largest worker ID the layout holds:
// 2^workerBits - 1.
func (a *Allocator) MaxWorkerID() int64 { return a.maxWorker }

// MaxSequence returns the largest sequence the layout holds: 2^seqBits - 1.
// A second holds MaxSequence()+1 IDs per worker.
func (a *Allocator) MaxSequence() int64 { return a.maxSeq }

// Allocate packs the three fields into a UID, bit for bit as Baidu's
// BitsAllocator.allocate: the fields are ORed together unmasked, so the
// caller keeps each within its maximum. Generators check that before they
// call; Allocate itself is a hot path and does not.
func (a *Allocator) Allocate(deltaSeconds, workerID, sequence int64) int64 {
	return deltaSeconds<<a.timeShift | workerID<<a.workerShift | sequence
}

// Parse unpacks a UID into its fields with the shifts of Baidu's
// DefaultUidGenerator.parseUID. Java's >>> is an unsigned shift, so Parse
// shifts as uint64 and gives Java's answer for any int64, negative ones
// included (their sign bit lands in deltaSeconds, as in Java).
func (a *Allocator) Parse(uid int64) (deltaSeconds, workerID, sequence int64) {
	u := uint64(uid)
	sequence = int64(u << (TotalBits - a.seqBits) >> (TotalBits - a.seqBits))
	workerID = int64(u << (a.timeBits + SignBits) >> (TotalBits - a.workerBits))
	deltaSeconds = int64(u >> a.timeShift)
	return deltaSeconds, workerID, sequence
}

// String describes the layout, as "1+30+20+13 bits (sign+time+worker+sequence)".
func (a *Allocator) String() string {
	return fmt.Sprintf("%d+%d+%d+%d bits (sign+time+worker+sequence)",
		SignBits, a.timeBits, a.workerBits, a.seqBits)
}
