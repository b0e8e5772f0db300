package uidgen_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
)

// baiduEpoch is the epoch of Baidu's defaults, 28/22/13 bits.
var baiduEpoch = time.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC)

// baidu is the Spec of Baidu's defaults.
var baidu = bits.Spec{TimeBits: 28, WorkerBits: 22, SeqBits: 13}

// inUTC makes the local zone UTC for the test, as the Java that computed
// the wanted strings ran with -Duser.timezone=UTC.
func inUTC(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = old })
}

// TestParseBaiduDefaults reads IDs of Baidu's default layout, whose time
// bits ran out in 2024, and checks them against what Baidu's own Java
// (BitsAllocator.allocate and DefaultUidGenerator.parseUID, run with
// javac 17 in UTC) computed for them.
func TestParseBaiduDefaults(t *testing.T) {
	inUTC(t)
	l, err := uidgen.NewLayout(baidu, time.Second, baiduEpoch)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		uid  int64
		want string
	}{
		// allocate(2024-11-19 12:34:56 - epoch, 1234567, 4321) in Java.
		{9219312100282790113, `{"UID":"9219312100282790113","timestamp":"2024-11-19 12:34:56","workerId":"1234567","sequence":"4321"}`},
		{8246337208330108984, `{"UID":"8246337208330108984","timestamp":"2023-12-27 18:40:00","workerId":"1234","sequence":"56"}`},
	} {
		if got := l.ParseUID(tt.uid); got != tt.want {
			t.Errorf("ParseUID(%d) = %s, want Java's %s", tt.uid, got, tt.want)
		}
	}
	delta := time.Date(2024, 11, 19, 12, 34, 56, 0, time.UTC).Unix() - baiduEpoch.Unix()
	if got := l.Bits().Allocate(delta, 1234567, 4321); got != 9219312100282790113 {
		t.Errorf("Allocate = %d, want Java's 9219312100282790113", got)
	}
	if id := l.Parse(9219312100282790113); !id.Time.Equal(time.Date(2024, 11, 19, 12, 34, 56, 0, time.UTC)) || id.WorkerID != 1234567 || id.Sequence != 4321 {
		t.Errorf("Parse = %+v", id)
	}
	// 2016-05-20 + 2^28 s.
	if got, want := l.RunsOut(), time.Date(2024, 11, 20, 21, 24, 16, 0, time.UTC); !got.Equal(want) {
		t.Errorf("RunsOut = %v, want %v", got, want)
	}
}

func TestDefaultLayout(t *testing.T) {
	l := uidgen.DefaultLayout()
	if l.Bits().Spec() != (bits.Spec{TimeBits: 30, WorkerBits: 20, SeqBits: 13}) || l.Bits().MaxWorkerID() != 1<<20-1 {
		t.Errorf("default layout %v, want 30/20/13", l)
	}
	if !l.Epoch().Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("default epoch %v", l.Epoch())
	}
	if end := l.RunsOut().UTC(); end != time.Date(2059, 1, 10, 13, 37, 4, 0, time.UTC) {
		t.Errorf("default time bits run out %v, want 2059-01-10 13:37:04 UTC", end)
	}
	if got, want := l.String(), "1+30+20+13 bits (sign+time+worker+sequence) from 2025-01-01 00:00:00 UTC"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

// TestIDJSONSurvivesJavaScript checks that a parsed ID's JSON carries the
// numbers as strings: 2^53+1 as a JSON number would come back as 2^53.
func TestIDJSONSurvivesJavaScript(t *testing.T) {
	id := uidgen.ID{UID: 1<<53 + 1, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), WorkerID: 3, Sequence: 1}
	b, err := json.Marshal(id)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"uid":"9007199254740993","time":"2026-01-02T03:04:05Z","workerId":"3","sequence":"1"}`
	if string(b) != want {
		t.Fatalf("JSON = %s, want %s", b, want)
	}
	var back uidgen.ID
	if err := json.Unmarshal(b, &back); err != nil || back != id {
		t.Fatalf("round trip = %+v, %v", back, err)
	}
}

func TestSystemClockFollowsTheWallClock(t *testing.T) {
	c := uidgen.SystemClock()
	prev := c.Now()
	for range 1000 {
		now := c.Now()
		if now.Before(prev) {
			t.Fatalf("SystemClock went back from %v to %v", prev, now)
		}
		prev = now
	}
	if d := time.Since(prev); d < 0 || d > time.Second {
		t.Fatalf("SystemClock is %v off the wall clock", d)
	}
}

func TestStatic(t *testing.T) {
	if id, err := uidgen.Static(7).AssignWorkerID(context.Background()); id != 7 || err != nil {
		t.Errorf("Static(7) = %d, %v", id, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := uidgen.Static(7).AssignWorkerID(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Static with a cancelled ctx = %v, want context.Canceled", err)
	}
}

// TestGeneLayout: a gene layout parses the gene and adds it to Baidu's
// string; a Baidu layout's string stays byte for byte Baidu's.
func TestGeneLayout(t *testing.T) {
	inUTC(t)
	l, err := uidgen.NewLayout(bits.Spec{TimeBits: 31, WorkerBits: 8, SeqBits: 13, GeneBits: 1}, time.Second,
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	uid := l.Bits().Allocate(86400, 255, 7) | 1
	id := l.Parse(uid)
	if id.WorkerID != 255 || id.Sequence != 7 || id.Gene != 1 || !id.Time.Equal(time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Parse(%d) = %+v", uid, id)
	}
	want := fmt.Sprintf(`{"UID":"%d","timestamp":"2025-01-02 00:00:00","workerId":"255","sequence":"7","gene":"1"}`, uid)
	if got := l.ParseUID(uid); got != want {
		t.Errorf("ParseUID = %s, want %s", got, want)
	}
	if got, want := l.String(), "1+31+8+13+1 bits (sign+time+worker+sequence+gene), IDs below 2^53 from 2025-01-01 00:00:00 UTC"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	b, err := json.Marshal(id)
	if err != nil || !strings.HasSuffix(string(b), `"sequence":"7","gene":"1"}`) {
		t.Errorf("JSON = %s, %v; want the gene as a string", b, err)
	}
	if b, _ := json.Marshal(uidgen.ID{UID: 3}); strings.Contains(string(b), "gene") {
		t.Errorf("JSON of an ID without a gene = %s, want no gene field", b)
	}
}

// TestDiscordExample reads the ID of Discord's API reference ("Snowflakes"):
// 175928847299117063 is 2016-04-30 11:18:25.796 UTC, internal worker 1 and
// process 0 (the 10-bit worker field 32), increment 7.
func TestDiscordExample(t *testing.T) {
	inUTC(t)
	l, err := uidgen.NamedLayout("discord")
	if err != nil {
		t.Fatal(err)
	}
	id := l.Parse(175928847299117063)
	if want := time.Date(2016, 4, 30, 11, 18, 25, 796e6, time.UTC); !id.Time.Equal(want) || id.WorkerID != 32 || id.Sequence != 7 {
		t.Errorf("Parse = %+v, want %v, worker 32, sequence 7", id, want)
	}
	b, err := json.Marshal(id)
	if want := `{"uid":"175928847299117063","time":"2016-04-30T11:18:25.796Z","workerId":"32","sequence":"7"}`; err != nil || string(b) != want {
		t.Errorf("JSON = %s, %v; want %s", b, err, want)
	}
	if got, want := l.ParseUID(175928847299117063), `{"UID":"175928847299117063","timestamp":"2016-04-30 11:18:25.796","workerId":"32","sequence":"7"}`; got != want {
		t.Errorf("ParseUID = %s, want %s", got, want)
	}
	if got, want := l.ParseUIDIn(175928847299117063, time.FixedZone("", 8*3600)), `{"UID":"175928847299117063","timestamp":"2016-04-30 19:18:25.796","workerId":"32","sequence":"7"}`; got != want {
		t.Errorf("ParseUIDIn(UTC+8) = %s, want %s", got, want)
	}
}

// TestNamedLayouts holds each named layout to the numbers of its source
// (see named.go), and to when it runs out: epoch + 2^T ticks with a sign
// bit, 2^(T-1) without.
func TestNamedLayouts(t *testing.T) {
	twitter := time.UnixMilli(1288834974657)
	for _, tt := range []struct {
		name              string
		time, worker, seq int
		seqAbove, noSign  bool
		tick              time.Duration
		epoch, runsOut    time.Time
	}{
		{"baidu", 28, 22, 13, false, false, time.Second, baiduEpoch, baiduEpoch.Add(1 << 28 * time.Second)},
		{"bwmarrin", 41, 10, 12, false, false, time.Millisecond, twitter, twitter.Add(1 << 41 * time.Millisecond)},
		{"cosid", 41, 10, 12, false, false, time.Millisecond, time.UnixMilli(1577203200000), time.UnixMilli(1577203200000 + 1<<41)},
		{"discord", 42, 10, 12, false, true, time.Millisecond, time.UnixMilli(1420070400000), time.UnixMilli(1420070400000 + 1<<41)},
		{"instagram", 41, 13, 10, false, true, time.Millisecond, time.UnixMilli(1314220021721), time.UnixMilli(1314220021721 + 1<<40)},
		{"leaf", 41, 10, 12, false, false, time.Millisecond, twitter, twitter.Add(1 << 41 * time.Millisecond)},
		{"sonyflake", 39, 16, 8, true, false, 10 * time.Millisecond, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
			time.UnixMilli(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() + 10<<39)},
		{"sonyflake-v1", 39, 16, 8, true, false, 10 * time.Millisecond, time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC),
			time.UnixMilli(time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC).UnixMilli() + 10<<39)},
		{"twitter", 41, 10, 12, false, false, time.Millisecond, twitter, twitter.Add(1 << 41 * time.Millisecond)},
		{"uidgen", 30, 20, 13, false, false, time.Second, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2059, 1, 10, 13, 37, 4, 0, time.UTC)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := uidgen.NamedLayout(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			b := l.Bits()
			want := bits.Spec{TimeBits: tt.time, WorkerBits: tt.worker, SeqBits: tt.seq, SeqAboveWorker: tt.seqAbove, NoSignBit: tt.noSign}
			if b.Spec() != want {
				t.Errorf("layout %v, want %d/%d/%d, sequence above %v, no sign bit %v", l, tt.time, tt.worker, tt.seq, tt.seqAbove, tt.noSign)
			}
			if l.Tick() != tt.tick || !l.Epoch().Equal(tt.epoch) {
				t.Errorf("tick %v from %v, want %v from %v", l.Tick(), l.Epoch(), tt.tick, tt.epoch)
			}
			if !l.RunsOut().Equal(tt.runsOut) {
				t.Errorf("RunsOut = %v, want %v", l.RunsOut().UTC(), tt.runsOut.UTC())
			}
			// The last tick's largest ID is a positive int64 that reads back.
			last := b.Allocate(b.MaxDelta(), b.MaxWorkerID(), b.MaxSequence())
			if id := l.Parse(last); last < 0 || !id.Time.Equal(l.RunsOut().Add(-l.Tick())) {
				t.Errorf("last ID %d reads as %v, want %v", last, id.Time, l.RunsOut().Add(-l.Tick()))
			}
		})
	}
	if got := uidgen.LayoutNames(); !slices.IsSorted(got) || len(got) != 10 {
		t.Errorf("LayoutNames = %v, want the 10 names sorted", got)
	}
}

func TestNamedLayoutUnknown(t *testing.T) {
	_, err := uidgen.NamedLayout("snowflake")
	want := `uidgen: invalid bit layout: unknown layout name "snowflake": want one of baidu, bwmarrin, cosid, discord, instagram, leaf, sonyflake, sonyflake-v1, twitter, uidgen`
	if !errors.Is(err, bits.ErrLayout) || err.Error() != want {
		t.Errorf("NamedLayout(snowflake) = %v, want %v: %s", err, bits.ErrLayout, want)
	}
}

func TestNewLayoutRejects(t *testing.T) {
	twitter := bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12}
	for _, tt := range []struct {
		spec bits.Spec
		tick time.Duration
		want error
		text string
	}{
		{twitter, 3 * time.Millisecond, bits.ErrLayout, "tick 3ms: want at least 1ms, dividing 1s (1ms, 10ms, 250ms, 1s, ...)"},
		{twitter, 500 * time.Microsecond, bits.ErrLayout, "tick 500µs: want at least 1ms"},
		{twitter, 0, bits.ErrLayout, "tick 0s: want at least 1ms"},
		{twitter, -time.Second, bits.ErrLayout, "tick -1s: want at least 1ms"},
		{twitter, 2 * time.Second, bits.ErrLayout, "tick 2s: want at least 1ms, dividing 1s"},
		{bits.Spec{TimeBits: 42, WorkerBits: 10, SeqBits: 12}, time.Millisecond, bits.ErrLayout, "time 42 + worker 10 + sequence 12 bits = 65: want at most 64"},
		{bits.Spec{TimeBits: 0, WorkerBits: 50, SeqBits: 13}, time.Second, bits.ErrLayout, "time 0, worker 50, sequence 13, gene 0 bits: each of the first three must be at least 1"},
		{bits.Spec{TimeBits: 40}, time.Second, bits.ErrLayout, "worker 0"},
		{bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12, NoSignBit: true}, time.Millisecond, bits.ErrLayout, "= 63, want exactly 64"},
	} {
		l, err := uidgen.NewLayout(tt.spec, tt.tick, time.UnixMilli(1288834974657))
		if !errors.Is(err, tt.want) || !strings.HasPrefix(err.Error(), "uidgen: invalid bit layout: ") || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("NewLayout(%+v, %v) = %v, %v; want %v starting \"uidgen: \" and saying %q", tt.spec, tt.tick, l, err, tt.want, tt.text)
		}
	}
}

// TestTickLayout: a layout of 10 ms ticks and a millisecond epoch reads the
// time to the tick and prints it to the millisecond.
func TestTickLayout(t *testing.T) {
	inUTC(t)
	epoch := time.Date(2020, 1, 1, 0, 0, 0, 123e6, time.UTC) // not a whole second, and before 1970 below
	for _, e := range []time.Time{epoch, time.Date(1969, 12, 31, 23, 59, 59, 123e6, time.UTC)} {
		l, err := uidgen.NewLayout(bits.Spec{TimeBits: 39, WorkerBits: 16, SeqBits: 8, SeqAboveWorker: true}, 10*time.Millisecond, e.Add(456*time.Microsecond))
		if err != nil {
			t.Fatal(err)
		}
		if !l.Epoch().Equal(e) {
			t.Errorf("Epoch = %v, want %v: to the millisecond", l.Epoch(), e)
		}
		uid := l.Bits().Allocate(250, 9, 3) // 2.5 s after the epoch
		id := l.Parse(uid)
		if want := e.Add(2500 * time.Millisecond); !id.Time.Equal(want) || id.WorkerID != 9 || id.Sequence != 3 {
			t.Errorf("Parse = %+v, want %v, worker 9, sequence 3", id, want)
		}
		want := fmt.Sprintf(`{"UID":"%d","timestamp":"%s","workerId":"9","sequence":"3"}`, uid, e.Add(2500*time.Millisecond).Format("2006-01-02 15:04:05.000"))
		if got := l.ParseUID(uid); got != want {
			t.Errorf("ParseUID = %s, want %s", got, want)
		}
	}
}

// TestTickOf: TickOf and TimeOf are each other's inverse to the tick, before
// and after an epoch 657 ms past a whole second, in 1 ms and 10 ms ticks.
func TestTickOf(t *testing.T) {
	epoch := time.UnixMilli(1288834974657)
	for _, tick := range []time.Duration{time.Millisecond, 10 * time.Millisecond, time.Second} {
		l, err := uidgen.NewLayout(bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12}, tick, epoch)
		if err != nil {
			t.Fatal(err)
		}
		for k := int64(-2000); k < 2000; k += 7 {
			start := epoch.Add(time.Duration(k) * tick)
			if got := l.TimeOf(k); !got.Equal(start) {
				t.Fatalf("%v ticks: TimeOf(%d) = %v, want %v", tick, k, got, start)
			}
			if got, last := l.TickOf(start), l.TickOf(start.Add(tick-1)); got != k || last != k {
				t.Fatalf("%v ticks: TickOf(%v) = %d and TickOf of its last instant %d, want %d", tick, start, got, last, k)
			}
		}
	}
}
