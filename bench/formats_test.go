package bench

import (
	"testing"
	"time"

	"github.com/bwmarrin/snowflake"
	"github.com/sony/sonyflake/v2"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/defaultgen"
)

// The peers' layouts built field by field with uidgen.NewLayout, beside
// the named ones, so that the order, widths, tick and epoch of both are held
// to the peers' own decoders.
var (
	bwmarrinSpec  = bits.Spec{TimeBits: 41, WorkerBits: 10, SeqBits: 12}
	sonyflakeSpec = bits.Spec{TimeBits: 39, WorkerBits: 16, SeqBits: 8, SeqAboveWorker: true}
)

// TestUidgenReadsBwmarrin makes IDs with bwmarrin/snowflake's Node 7 and
// reads them with uidgen's "bwmarrin" layout: node, millisecond and step are
// what bwmarrin's own ID says.
func TestUidgenReadsBwmarrin(t *testing.T) {
	l := named(t, "bwmarrin")
	n, err := snowflake.NewNode(7)
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	for range 10000 { // more than 4,096: the IDs span milliseconds and steps
		x := n.Generate()
		id := l.Parse(x.Int64())
		if id.WorkerID != 7 || id.WorkerID != x.Node() || id.Sequence != x.Step() || id.Time.UnixMilli() != x.Time() {
			t.Fatalf("uidgen reads %d as node %d, step %d, %d ms; bwmarrin as node %d, step %d, %d ms",
				x, id.WorkerID, id.Sequence, id.Time.UnixMilli(), x.Node(), x.Step(), x.Time())
		}
		if id.Time.Before(before.Add(-time.Second)) || id.Time.After(time.Now().Add(time.Second)) {
			t.Fatalf("uidgen reads %d as made at %v, not now (%v)", x, id.Time, before)
		}
	}
}

// TestBwmarrinReadsUidgen packs IDs with the bwmarrin layouts' Allocate
// and reads them with bwmarrin's ParseInt64: the node, step and millisecond
// come back, so the fields lie where bwmarrin looks for them.
func TestBwmarrinReadsUidgen(t *testing.T) {
	built, err := uidgen.NewLayout(bwmarrinSpec, time.Millisecond, time.UnixMilli(snowflake.Epoch))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []uidgen.Layout{built, named(t, "bwmarrin"), named(t, "twitter")} {
		now := time.Now().UnixMilli() - l.Epoch().UnixMilli()
		for _, f := range []struct{ delta, node, step int64 }{
			{now, 7, 0}, {now, 0, 4095}, {now + 1, 1023, 1}, {0, 1, 1}, {l.Bits().MaxDelta(), 1023, 4095},
		} {
			uid := l.Bits().Allocate(f.delta, f.node, f.step)
			x := snowflake.ParseInt64(uid)
			if x.Node() != f.node || x.Step() != f.step || x.Time() != snowflake.Epoch+f.delta || l.Parse(uid).Time.UnixMilli() != x.Time() {
				t.Errorf("%v: Allocate(%d, %d, %d) = %d, which bwmarrin reads as node %d, step %d, %d ms",
					l, f.delta, f.node, f.step, uid, x.Node(), x.Step(), x.Time())
			}
		}
	}
}

// TestUidgenReadsSonyflake makes IDs with sony/sonyflake v2, with its
// defaults and with v1's start time (v1's layout), and reads them with
// uidgen's "sonyflake" and "sonyflake-v1" layouts: machine, sequence and
// time are what sonyflake's Decompose and ToTime say.
func TestUidgenReadsSonyflake(t *testing.T) {
	for _, tt := range []struct {
		name  string
		start time.Time
	}{
		{"sonyflake", time.Time{}},
		{"sonyflake-v1", time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := named(t, tt.name)
			sf, err := sonyflake.New(sonyflake.Settings{StartTime: tt.start, MachineID: func() (int, error) { return 0x1234, nil }})
			if err != nil {
				t.Fatal(err)
			}
			for range 600 { // more than 256: the IDs span ticks and sequences
				uid, err := sf.NextID()
				if err != nil {
					t.Fatal(err)
				}
				id, d := l.Parse(uid), sf.Decompose(uid)
				if id.WorkerID != 0x1234 || id.WorkerID != d["machine"] || id.Sequence != d["sequence"] || !id.Time.Equal(sf.ToTime(uid)) {
					t.Fatalf("uidgen reads %d as machine %d, sequence %d, %v; sonyflake as %v, %v",
						uid, id.WorkerID, id.Sequence, id.Time, d, sf.ToTime(uid))
				}
			}
		})
	}
}

// TestSonyflakeReadsUidgen packs IDs with the sonyflake layouts' Allocate,
// the sequence above the machine, and reads them with sonyflake's Decompose
// and ToTime; sonyflake's Compose of the same fields is the same ID.
func TestSonyflakeReadsUidgen(t *testing.T) {
	built, err := uidgen.NewLayout(sonyflakeSpec, 10*time.Millisecond, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	sf, err := sonyflake.New(sonyflake.Settings{MachineID: func() (int, error) { return 0, nil }})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []uidgen.Layout{built, named(t, "sonyflake")} {
		now := time.Since(l.Epoch()) / l.Tick()
		for _, f := range []struct{ delta, machine, seq int64 }{
			{int64(now), 0x1234, 5}, {int64(now), 0, 255}, {int64(now) + 1, 0xffff, 0}, {0, 1, 1}, {l.Bits().MaxDelta(), 0xffff, 255},
		} {
			uid := l.Bits().Allocate(f.delta, f.machine, f.seq)
			d := sf.Decompose(uid)
			if d["time"] != f.delta || d["machine"] != f.machine || d["sequence"] != f.seq || !sf.ToTime(uid).Equal(l.Parse(uid).Time) {
				t.Errorf("%v: Allocate(%d, %d, %d) = %d, which sonyflake reads as %v at %v, uidgen at %v",
					l, f.delta, f.machine, f.seq, uid, d, sf.ToTime(uid), l.Parse(uid).Time)
			}
			if f.delta == l.Bits().MaxDelta() {
				continue // Compose refuses a time past the clock's; Decompose reads it all the same
			}
			if c, err := sf.Compose(l.Parse(uid).Time, int(f.seq), int(f.machine)); err != nil || c != uid {
				t.Errorf("%v: sonyflake's Compose of %v = %d, %v; uidgen's Allocate %d", l, f, c, err, uid)
			}
		}
	}
}

func named(t *testing.T, name string) uidgen.Layout {
	t.Helper()
	l, err := uidgen.NamedLayout(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// idMaker is what TestPeersReadOurGenerators needs of both generators.
type idMaker interface {
	NextID() (int64, error)
	Close() error
}

// TestPeersReadOurGenerators makes IDs with both of uidgen's generators,
// worker 7, in the bwmarrin and sonyflake layouts, and reads them with the
// peers' own code: bwmarrin's ParseInt64 finds node 7, uidgen's step and the
// millisecond uidgen's Parse gives; sonyflake's Decompose finds machine 7
// and uidgen's sequence, and its ToTime the time. The IDs increase, and
// their time is now: no older than the cached generator's MaxLag, no
// further ahead than it borrows for 10,000 IDs.
func TestPeersReadOurGenerators(t *testing.T) {
	sf, err := sonyflake.New(sonyflake.Settings{MachineID: func() (int, error) { return 0, nil }})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bwmarrin", "sonyflake"} {
		l := named(t, name)
		for _, gen := range []string{"cached", "defaultgen"} {
			t.Run(name+"/"+gen, func(t *testing.T) {
				// The cached generator fills its ring in New, from the
				// tick New read, and hands out IDs up to MaxLag old.
				const maxLag = 2 * time.Second
				before := time.Now().Add(-maxLag - l.Tick())
				var g idMaker
				if gen == "cached" {
					g, err = cached.New(t.Context(), cached.Config{Layout: l, Assigner: uidgen.Static(7), MaxLag: maxLag})
				} else {
					g, err = defaultgen.New(t.Context(), defaultgen.Config{Layout: l, Assigner: uidgen.Static(7)})
				}
				if err != nil {
					t.Fatal(err)
				}
				defer g.Close()
				var last int64
				for range 10_000 {
					uid, err := g.NextID()
					if err != nil {
						t.Fatal(err)
					}
					if uid <= last {
						t.Fatalf("ID %d after %d", uid, last)
					}
					last = uid
					id := l.Parse(uid)
					if name == "bwmarrin" {
						x := snowflake.ParseInt64(uid)
						if x.Node() != 7 || x.Step() != id.Sequence || x.Time() != id.Time.UnixMilli() {
							t.Fatalf("bwmarrin reads %d as node %d, step %d, %d ms; uidgen made node 7, step %d, %d ms",
								uid, x.Node(), x.Step(), x.Time(), id.Sequence, id.Time.UnixMilli())
						}
					} else {
						d := sf.Decompose(uid)
						if d["machine"] != 7 || d["sequence"] != id.Sequence || !sf.ToTime(uid).Equal(id.Time) {
							t.Fatalf("sonyflake reads %d as %v at %v; uidgen made machine 7, sequence %d, at %v",
								uid, d, sf.ToTime(uid), id.Sequence, id.Time)
						}
					}
					if id.Time.Before(before) || id.Time.After(time.Now().Add(10*time.Second)) {
						t.Fatalf("ID %d is of %v, not now (%v)", uid, id.Time, before)
					}
				}
			})
		}
	}
}
