package serial

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// scheme2 is the seed article's second scheme in Twitter's layout: a
// business code, the time to the millisecond, the worker and the sequence.
const scheme2 = "001{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}"

func named(t testing.TB, name string) uidgen.Layout {
	t.Helper()
	l, err := uidgen.NamedLayout(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func newSnowflake(t testing.TB, pattern string, l uidgen.Layout, loc *time.Location) *Snowflake {
	t.Helper()
	f, err := NewSnowflake(pattern, l, loc)
	if err != nil {
		t.Fatalf("NewSnowflake(%q): %v", pattern, err)
	}
	return f
}

// TestScheme2 makes a million IDs of a cached generator in Twitter's
// layout on four goroutines and writes each through scheme 2: the strings
// are unique, of one width, sorted as their IDs, and read back to them.
func TestScheme2(t *testing.T) {
	l := named(t, "twitter")
	f := newSnowflake(t, scheme2, l, time.UTC)
	g, err := cached.New(context.Background(), cached.Config{Layout: l, Assigner: uidgen.Static(7)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	const goroutines = 4
	total := sizetest.Pick(1_000_000, 100_000)
	type pair struct {
		id int64
		s  string
	}
	got := make([][]pair, goroutines)
	gate := make(chan struct{})
	var wg sync.WaitGroup
	var failed atomic.Value
	for i := range goroutines {
		wg.Go(func() {
			<-gate
			mine := make([]pair, 0, total/goroutines)
			for range total / goroutines {
				id, err := g.NextID()
				if err != nil {
					failed.Store(err)
					return
				}
				mine = append(mine, pair{id, f.Format(id)})
			}
			got[i] = mine
		})
	}
	close(gate)
	wg.Wait()
	if err := failed.Load(); err != nil {
		t.Fatal(err)
	}
	all := slices.Concat(got...)
	if len(all) != total/goroutines*goroutines {
		t.Fatalf("%d strings, want %d", len(all), total)
	}
	slices.SortFunc(all, func(a, b pair) int { return int(a.id - b.id) })
	width := len(all[0].s)
	if width != 28 {
		t.Errorf("width %d (%s), want 28", width, all[0].s)
	}
	for i, p := range all {
		if len(p.s) != width {
			t.Fatalf("%q is %d wide, want %d", p.s, len(p.s), width)
		}
		if i > 0 && p.s <= all[i-1].s {
			t.Fatalf("ID %d > %d, but %q <= %q: not unique, or not sorted as the IDs", p.id, all[i-1].id, p.s, all[i-1].s)
		}
		back, err := f.Parse(p.s)
		if err != nil || back != p.id {
			t.Fatalf("Parse(%q) = %d, %v; want %d", p.s, back, err, p.id)
		}
	}
	for i := range got {
		for j := 1; j < len(got[i]); j++ {
			if got[i][j].s <= got[i][j-1].s {
				t.Fatalf("goroutine %d: %q after %q", i, got[i][j].s, got[i][j-1].s)
			}
		}
	}
}

// TestSnowflakeFormat pins the strings of known IDs.
func TestSnowflakeFormat(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	twitter := named(t, "twitter")
	// 2026-11-27 08:30:00.123 UTC, worker 7, sequence 5.
	id := twitter.Bits().Allocate(twitter.TickOf(time.Date(2026, 11, 27, 8, 30, 0, 123e6, time.UTC)), 7, 5)
	for _, c := range []struct {
		pattern string
		l       uidgen.Layout
		loc     *time.Location
		id      int64
		want    string
	}{
		{scheme2, twitter, time.UTC, id, "0012026112708300012300070005"},
		{scheme2, twitter, shanghai, id, "0012026112716300012300070005"},
		{"{{{yyyy}-{MM}-{dd}T{HH}:{mm}:{ss}.{SSS}}} w{worker:4} s{seq:5}", twitter, nil, id, "{2026-11-27T08:30:00.123} w0007 s00005"},
		{"{yyyy}{MM}{dd}{HH}{mm}{ss}-{worker:7}-{seq:4}", uidgen.DefaultLayout(), time.UTC,
			uidgen.DefaultLayout().Bits().Allocate(0, 1048575, 8191), "20250101000000-1048575-8191"},
		{"{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{seq:3}{worker:5}", named(t, "sonyflake"), time.UTC,
			named(t, "sonyflake").Bits().Allocate(1, 65535, 255), "2025010100000001025565535"},
	} {
		f := newSnowflake(t, c.pattern, c.l, c.loc)
		if got := f.Format(c.id); got != c.want {
			t.Errorf("%s: Format(%d) = %q, want %q", c.pattern, c.id, got, c.want)
		}
		if back, err := f.Parse(c.want); err != nil || back != c.id {
			t.Errorf("%s: Parse(%q) = %d, %v; want %d", c.pattern, c.want, back, err, c.id)
		}
	}
}

// TestSnowflakeRoundTrip writes random and edge IDs of several layouts and
// reads them back; of random pairs, the strings sort as the IDs.
func TestSnowflakeRoundTrip(t *testing.T) {
	kolkata, err := time.LoadLocation("Asia/Kolkata") // UTC+5:30 since 1945
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, pattern string
		loc           *time.Location
	}{
		{"twitter", scheme2, kolkata},
		{"sonyflake", "{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{seq:3}{worker:5}", time.UTC},
		{"discord", "{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}-{worker:4}-{seq:4}", time.UTC},
		{"uidgen", "X{yyyy}{MM}{dd}{HH}{mm}{ss}{worker:7}{seq:4}", kolkata},
		{"baidu", "{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:7}{seq:4}", time.UTC},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := named(t, c.name)
			f := newSnowflake(t, c.pattern, l, c.loc)
			a := l.Bits()
			rnd := rand.New(rand.NewPCG(1, uint64(len(c.name))))
			random := func() int64 {
				return a.Allocate(rnd.Int64N(a.MaxDelta()+1), rnd.Int64N(a.MaxWorkerID()+1), rnd.Int64N(a.MaxSequence()+1))
			}
			ids := []int64{0, 1, a.Allocate(a.MaxDelta(), a.MaxWorkerID(), a.MaxSequence())}
			for range sizetest.Pick(100_000, 10_000) {
				ids = append(ids, random())
			}
			width := len(f.Format(0))
			for _, garbage := range []int64{-1, math.MinInt64, math.MaxInt64, a.Allocate(a.MaxDelta()+1, 0, 0)} {
				if s := f.Format(garbage); len(s) != width {
					t.Fatalf("Format(%d), no ID of the layout, = %q: want %d wide", garbage, s, width)
				}
			}
			for i, id := range ids {
				s := f.Format(id)
				if len(s) != width {
					t.Fatalf("Format(%d) = %q, %d wide, want %d", id, s, len(s), width)
				}
				back, err := f.Parse(s)
				if err != nil || back != id {
					t.Fatalf("Parse(Format(%d) = %q) = %d, %v", id, s, back, err)
				}
				if want := l.Parse(id).Time.In(c.loc).Format("20060102"); !strings.Contains(s, want) {
					t.Fatalf("Format(%d) = %q has not its date %s", id, s, want)
				}
				if i > 0 && (id < ids[i-1]) != (s < f.Format(ids[i-1])) {
					t.Fatalf("%d and %d sort otherwise than %q and %q", id, ids[i-1], s, f.Format(ids[i-1]))
				}
			}
		})
	}
}

// TestNewSnowflakeErrors: each pattern that cannot hold its layout's IDs
// is refused at construction, with what is missing.
func TestNewSnowflakeErrors(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	twitter := named(t, "twitter")
	epoch := uidgen.DefaultLayout().Epoch()
	gene, err := uidgen.NewLayout(bits.Spec{TimeBits: 31, WorkerBits: 8, SeqBits: 13, GeneBits: 4}, time.Second, epoch)
	if err != nil {
		t.Fatal(err)
	}
	quarter, err := uidgen.NewLayout(bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12}, time.Second/16, epoch)
	if err != nil {
		t.Fatal(err)
	}
	long, err := uidgen.NewLayout(bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12}, time.Second, epoch) // seconds for 69,000 years
	if err != nil {
		t.Fatal(err)
	}
	const ymdhms = "{yyyy}{MM}{dd}{HH}{mm}{ss}"
	for _, c := range []struct {
		name, pattern string
		l             uidgen.Layout
		loc           *time.Location
		want          error
		says          string
	}{
		{"unknown field", "{yyyy}{foo}", twitter, nil, uidgen.ErrConfig, "{foo} is not a field"},
		{"lone brace", "a}b", twitter, nil, uidgen.ErrConfig, "lone } at byte 1"},
		{"brace not closed", "a{yyyy", twitter, nil, uidgen.ErrConfig, "{ at byte 1 is not closed"},
		{"N not a number", "{seq:x}", twitter, nil, uidgen.ErrConfig, "{seq:x}: want {seq:N}, N digits from 1 to 18"},
		{"N too big", "{seq:19}", twitter, nil, uidgen.ErrConfig, "N digits from 1 to 18"},
		{"field twice", "{yyyy}{yyyy}", twitter, nil, uidgen.ErrConfig, "{yyyy}: the pattern has a field for it already"},
		{"two years", "{yy}{yyyy}", twitter, nil, uidgen.ErrConfig, "{yyyy}: the pattern has a field for it already"},
		{"no worker", scheme2[:len(scheme2)-len("{worker:4}{seq:4}")] + "{seq:4}", twitter, nil, uidgen.ErrConfig, "no {worker:N}: its worker field goes to 1023, which needs {worker:4}"},
		{"worker digits", ymdhms + "{SSS}{worker:3}{seq:4}", twitter, nil, uidgen.ErrConfig, "{worker:3} has too few digits: its worker field goes to 1023, which needs {worker:4}"},
		{"seq digits", ymdhms + "{SSS}{worker:4}{seq:3}", twitter, nil, uidgen.ErrConfig, "{seq:3} has too few digits: its seq field goes to 4095, which needs {seq:4}"},
		{"no time", "{worker:4}{seq:4}", twitter, nil, uidgen.ErrConfig, "no {yyyy}: its times need {yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}"},
		{"no SSS", ymdhms + "{worker:4}{seq:4}", twitter, nil, uidgen.ErrConfig, "no {SSS}: its times need"},
		{"no hour", "{yyyy}{MM}{dd}{mm}{ss}{SSS}{worker:4}{seq:4}", twitter, nil, uidgen.ErrConfig, "no {HH}"},
		{"yy", "{yy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}", twitter, nil, uidgen.ErrConfig, "{yy} cannot read back to a year: use {yyyy}"},
		{"order", ymdhms + "{SSS}{seq:4}{worker:4}", twitter, nil, uidgen.ErrConfig, "in the order " + ymdhms + "{SSS}{seq:4}{worker:4}: want " + ymdhms + "{SSS}{worker:4}{seq:4}"},
		{"sonyflake order", ymdhms + "{SSS}{worker:5}{seq:3}", named(t, "sonyflake"), nil, uidgen.ErrConfig, "want " + ymdhms + "{SSS}{seq:3}{worker:5}"},
		{"time after worker", "{worker:4}" + ymdhms + "{SSS}{seq:4}", twitter, nil, uidgen.ErrConfig, "the order of the ID's bits"},
		{"gene bits", ymdhms + "{worker:3}{seq:4}", gene, nil, uidgen.ErrConfig, "its 4 gene bits have no field"},
		{"tick finer than the field", ymdhms + "{SSS}{worker:4}{seq:4}", quarter, nil, uidgen.ErrConfig, "its tick, 62.5ms, is not a whole number of {SSS}'s unit, 1ms"},
		{"years past 9999", ymdhms + "{worker:4}{seq:4}", long, nil, uidgen.ErrConfig, "which {yyyy} cannot hold"},
		{"daylight saving time", scheme2, twitter, berlin, uidgen.ErrConfig, "zone Europe/Berlin changes its offset: it goes from CET (UTC+1.0h) to CEST (UTC+2.0h) at 2011-03-27T01:00:00Z"},
		{"zero layout", scheme2, uidgen.Layout{}, nil, uidgen.ErrConfig, "the zero Layout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewSnowflake(c.pattern, c.l, c.loc)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), fmt.Sprintf("serial: invalid config: pattern %q", c.pattern)) {
				t.Fatalf("NewSnowflake(%q) = %v; want %v saying %q", c.pattern, err, c.want, c.says)
			}
		})
	}
}

// TestSnowflakeParseErrors: each string that no ID makes is refused, with
// why, and Parse never panics.
func TestSnowflakeParseErrors(t *testing.T) {
	f := newSnowflake(t, "{yyyy}-{MM}-{dd} {HH}:{mm}:{ss}.{SSS} {seq:3} {worker:5}", named(t, "sonyflake-v1"), nil)
	g := newSnowflake(t, scheme2[3:], named(t, "twitter"), nil)
	for _, c := range []struct {
		f    *Snowflake
		s    string
		want error
		says string
	}{
		{g, "", uidgen.ErrIDSyntax, "0 bytes, want 25"},
		{g, "20261127083000123000700051", uidgen.ErrIDSyntax, "26 bytes, want 25"},
		{g, "2026112708300012300070x05", uidgen.ErrIDSyntax, `{seq:4} is "0x05", not 4 digits`},
		{g, "2026133108300012300070005", uidgen.ErrIDSyntax, "2026-13-31 08:30:00 is no date and time"},
		{g, "2026023008300012300070005", uidgen.ErrIDSyntax, "2026-02-30 08:30:00 is no date and time"},
		{g, "2026112724300012300070005", uidgen.ErrIDSyntax, "is no date and time"},
		{g, "2000112708300012300070005", uidgen.ErrIDRange, "before the layout's epoch"},
		{g, "2099112708300012300070005", uidgen.ErrIDRange, "past the layout's last tick"},
		{g, "2026112708300012320470005", uidgen.ErrIDRange, "worker 2047 is past the layout's largest, 1023"},
		{g, "2026112708300012300079999", uidgen.ErrIDRange, "sequence 9999 is past the layout's largest, 4095"},
		{f, "2026-11-27 08:30:00.123 005 00007", uidgen.ErrIDSyntax, "not on one of the layout's 10ms ticks"},
		{f, "2026/11-27 08:30:00.120 005 00007", uidgen.ErrIDSyntax, `"/" at byte 4, want "-"`},
	} {
		_, err := c.f.Parse(c.s)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Parse(%q) = %v; want %v saying %q", c.s, err, c.want, c.says)
		}
	}
	if _, err := f.Parse("2026-11-27 08:30:00.120 005 00007"); err != nil {
		t.Errorf("Parse of a string on a tick: %v", err)
	}
}

// FuzzSnowflakeParse: Parse never panics, and what it reads writes back
// as the same string.
func FuzzSnowflakeParse(f *testing.F) {
	s := newSnowflake(f, scheme2, named(f, "twitter"), nil)
	f.Add("0012026112708300012300070005")
	f.Add("0019999123123595999910234095")
	f.Fuzz(func(t *testing.T, str string) {
		id, err := s.Parse(str)
		if err == nil && s.Format(id) != str {
			t.Fatalf("Parse(%q) = %d, which writes as %q", str, id, s.Format(id))
		}
	})
}

var sink string

// BenchmarkFormat writes scheme 2 in Twitter's layout, beside the decimal
// string of the same ID, the baseline.
func BenchmarkFormat(b *testing.B) {
	l := named(b, "twitter")
	f := newSnowflake(b, scheme2, l, time.UTC)
	id := l.Bits().Allocate(l.TickOf(time.Date(2026, 11, 27, 8, 30, 0, 123e6, time.UTC)), 7, 5)
	b.Run("scheme2", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sink = f.Format(id + int64(i))
		}
	})
	b.Run("scheme2-append", func(b *testing.B) {
		b.ReportAllocs()
		var buf [64]byte
		for i := 0; b.Loop(); i++ {
			f.Append(buf[:0], id+int64(i))
		}
	})
	b.Run("scheme2-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for i := int64(0); pb.Next(); i++ {
				sink = f.Format(id + i)
			}
		})
	})
	b.Run("decimal", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			sink = strconv.FormatInt(id+int64(i), 10)
		}
	})
}
