package uidgen_test

import (
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
)

// A Layout reads IDs without a generator, clock or database: here one made
// by a Java service with Baidu's defaults, whose time bits ran out in 2024.
func ExampleNewLayout() {
	l, err := uidgen.NewLayout(bits.Spec{TimeBits: 28, WorkerBits: 22, SeqBits: 13}, time.Second,
		time.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC))
	if err != nil {
		fmt.Println(err)
		return
	}
	id := l.Parse(9219312100282790113)
	fmt.Println(id.Time.UTC(), id.WorkerID, id.Sequence)
	fmt.Println("time bits ran out at", l.RunsOut().UTC())
	// Output:
	// 2024-11-19 12:34:56 +0000 UTC 1234567 4321
	// time bits ran out at 2024-11-20 21:24:16 +0000 UTC
}

func ExampleNamedLayout() {
	l, err := uidgen.NamedLayout("discord")
	if err != nil {
		fmt.Println(err)
		return
	}
	id := l.Parse(175928847299117063) // Discord's documented example
	fmt.Println(id.Time.UTC().Format(time.RFC3339Nano), id.WorkerID, id.Sequence)
	fmt.Println(l)
	// Output:
	// 2016-04-30T11:18:25.796Z 32 7
	// 42+10+12 bits (time+worker+sequence) in 1ms ticks from 2015-01-01 00:00:00 UTC
}

func ExampleNewLayout_milliseconds() {
	// bwmarrin/snowflake's layout: 41 bits of milliseconds since Twitter's
	// epoch, 10 bits of node, 12 of step.
	l, err := uidgen.NewLayout(bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12},
		time.Millisecond, time.UnixMilli(1288834974657))
	if err != nil {
		fmt.Println(err)
		return
	}
	delta := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC).UnixMilli() - l.Epoch().UnixMilli()
	id := l.Parse(l.Bits().Allocate(delta, 7, 42))
	fmt.Println(id.Time.UTC().Format(time.RFC3339Nano), id.WorkerID, id.Sequence)
	// Output:
	// 2026-01-02T03:04:05.006Z 7 42
}
