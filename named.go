package uidgen

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen/bits"
)

// namedLayout is what NewLayout needs to build one of the named layouts.
type namedLayout struct {
	spec  bits.Spec
	tick  time.Duration
	epoch time.Time
}

func (n namedLayout) layout() (Layout, error) { return NewLayout(n.spec, n.tick, n.epoch) }

// namedLayouts are the layouts of the Snowflakes whose IDs uidgen reads
// under their own names, each with where its numbers come from.
var namedLayouts = map[string]namedLayout{
	// Baidu uid-generator's DefaultUidGenerator: timeBits 28, workerBits 22,
	// seqBits 13, epochStr "2016-05-20". Java parses the date in the JVM's
	// zone; this is midnight UTC, as a JVM run with -Duser.timezone=UTC.
	"baidu": {bits.Spec{TimeBits: 28, WorkerBits: 22, SeqBits: 13}, time.Second,
		time.Date(2016, time.May, 20, 0, 0, 0, 0, time.UTC)},
	// Twitter's snowflake (IdWorker.scala): twepoch 1288834974657, 5
	// datacenter + 5 worker bits (the worker field here), 12 sequence bits.
	"twitter": {bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12}, time.Millisecond, time.UnixMilli(1288834974657)},
	// Meituan Leaf's SnowflakeIDGenImpl: twepoch 1288834974657,
	// workerIdBits 10, sequenceBits 12.
	"leaf": {bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12}, time.Millisecond, time.UnixMilli(1288834974657)},
	// github.com/bwmarrin/snowflake v0.3.0: Epoch 1288834974657, NodeBits
	// 10, StepBits 12.
	"bwmarrin": {bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12}, time.Millisecond, time.UnixMilli(1288834974657)},
	// github.com/sony/sonyflake/v2's defaults: defaultTimeUnit 10 ms,
	// defaultBitsSequence 8 above defaultBitsMachine 16, 63-8-16 = 39 time
	// bits, StartTime 2025-01-01 00:00:00 UTC.
	"sonyflake": {bits.Spec{TimeBits: 39, WorkerBits: 16, SeqBits: 8, SeqAboveWorker: true}, 10 * time.Millisecond,
		time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)},
	// github.com/sony/sonyflake (v1): BitLenTime 39, BitLenSequence 8 above
	// BitLenMachineID 16, 10 ms, StartTime 2014-09-01 00:00:00 UTC.
	"sonyflake-v1": {bits.Spec{TimeBits: 39, WorkerBits: 16, SeqBits: 8, SeqAboveWorker: true}, 10 * time.Millisecond,
		time.Date(2014, time.September, 1, 0, 0, 0, 0, time.UTC)},
	// Discord's API reference, "Snowflakes": 42 bits of milliseconds since
	// the Discord epoch 1420070400000, 5 worker + 5 process bits, 12
	// increment bits; all 64 bits, no sign bit.
	"discord": {bits.Spec{TimeBits: 42, WorkerBits: 10, SeqBits: 12, NoSignBit: true}, time.Millisecond, time.UnixMilli(1420070400000)},
	// Instagram Engineering, "Sharding & IDs at Instagram" (2012): 41 bits
	// of milliseconds since 1314220021721, 13 bits of logical shard ID, 10
	// bits of sequence; all 64 bits, no sign bit.
	"instagram": {bits.Spec{TimeBits: 41, WorkerBits: 13, SeqBits: 10, NoSignBit: true}, time.Millisecond, time.UnixMilli(1314220021721)},
	// CosId's MillisecondSnowflakeId defaults: 41 timestamp, 10 machine and
	// 12 sequence bits from CosId.COSID_EPOCH 1577203200000
	// (2019-12-25 00:00 in UTC+8).
	"cosid": {bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12}, time.Millisecond, time.UnixMilli(1577203200000)},
	// This library's DefaultLayout.
	"uidgen": defaultLayout,
}

// NamedLayout returns the layout of the Snowflake called name, one of
// LayoutNames: "baidu", "twitter", "leaf", "bwmarrin", "sonyflake" (v2),
// "sonyflake-v1", "discord", "instagram", "cosid", and "uidgen" (the
// DefaultLayout). An unknown name is an error wrapping bits.ErrLayout that
// lists the known ones.
func NamedLayout(name string) (Layout, error) {
	n, ok := namedLayouts[name]
	if !ok {
		return Layout{}, fmt.Errorf("uidgen: %w: unknown layout name %q: want one of %s", bits.ErrLayout, name, strings.Join(LayoutNames(), ", "))
	}
	return n.layout()
}

// LayoutNames returns the names NamedLayout knows, sorted.
func LayoutNames() []string { return slices.Sorted(maps.Keys(namedLayouts)) }
