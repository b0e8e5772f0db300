package scheme

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
)

// TestRandomFirstSequence: a second's first sequence stays within the second, whatever
// rate is measured (a sample read while the counters move can come out
// negative or above a second's IDs), and never makes UID 0.
func TestRandomFirstSequence(t *testing.T) {
	layout, err := uidgen.NewLayout(bits.Spec{TimeBits: 40, WorkerBits: 19, SeqBits: 4}, time.Second, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Params{Layout: layout, Assigner: uidgen.Static(0)})
	if err != nil {
		t.Fatal(err)
	}
	for _, rate := range []int64{-100, -1, 0, 1, 8, 15, 16, 17, 1 << 40} {
		for delta := range int64(200) {
			first := s.RandomFirstSequence(delta%2, s.Unused(rate))
			if first < 0 || first > 15 || delta%2 == 0 && first == 0 {
				t.Fatalf("RandomFirstSequence(%d, rate %d) = %d, want in [0, 15] and not UID 0", delta%2, rate, first)
			}
			if rate >= 15 && first > s.FirstSequence(delta%2) {
				t.Fatalf("RandomFirstSequence(%d, rate %d) = %d: at a full second's rate no sequence may be skipped", delta%2, rate, first)
			}
		}
	}
}

// tickScheme is a scheme in sonyflake's 10 ms ticks from an epoch 657 ms
// past a whole second, so that ticks straddle whole seconds, on a clock
// stopped at now.
func tickScheme(t *testing.T, now time.Time, after int64) *Scheme {
	t.Helper()
	layout, err := uidgen.NewLayout(bits.Spec{TimeBits: 39, WorkerBits: 16, SeqBits: 8, SeqAboveWorker: true},
		10*time.Millisecond, time.UnixMilli(1288834974657))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Params{Layout: layout, Assigner: uidgen.Static(3), Clock: clocktest.New(now), After: after, MaxAhead: -1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTicks: the arithmetic of ticks against a brute-force reading of the
// instants. Tick k starts at TimeOf(k) and the clock reads tick k from that
// instant to the next's; a lease from Unix second u starts at the first
// tick that starts at u or later; a tick is reserved with the second its
// last instant falls in.
func TestTicks(t *testing.T) {
	epoch := time.UnixMilli(1288834974657)
	s := tickScheme(t, epoch.Add(time.Hour), 0)
	for k := int64(-1000); k < 1000; k++ { // before the epoch too
		start := epoch.Add(time.Duration(k) * 10 * time.Millisecond)
		if got := s.TimeOf(k); !got.Equal(start) {
			t.Fatalf("TimeOf(%d) = %v, want %v", k, got, start)
		}
		for _, at := range []time.Time{start, start.Add(time.Millisecond), start.Add(10*time.Millisecond - 1)} {
			if got := s.layout.TickOf(at); got != k {
				t.Fatalf("TickOf(%v) = %d, want %d", at, got, k)
			}
		}
		if got, want := s.lastSecondOf(k), start.Add(10*time.Millisecond-1).Unix(); got != want {
			t.Fatalf("lastSecondOf(%d) = %d, want %d: the tick ends in second %d", k, got, want, want)
		}
	}
	for u := epoch.Unix() + 1; u < epoch.Unix()+10; u++ {
		first := s.firstTickOf(u)
		if s.TimeOf(first).Before(time.Unix(u, 0)) || !s.TimeOf(first-1).Before(time.Unix(u, 0)) {
			t.Fatalf("firstTickOf(%d) = %d, starting %v: want the first tick starting at or after %v",
				u, first, s.TimeOf(first), time.Unix(u, 0))
		}
	}
}

// TestAfter: the first tick is the one after After's, whatever the clock
// says; an After the layout cannot go beyond is refused naming the ID.
func TestAfter(t *testing.T) {
	epoch := time.UnixMilli(1288834974657)
	now := epoch.Add(time.Hour)
	ahead := tickScheme(t, now, 0).Bits().Allocate(360_000+100, 5, 9) // a second ahead of the clock
	s := tickScheme(t, now, ahead)
	if err := s.Assign(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s.FirstDelta() != 360_101 {
		t.Fatalf("FirstDelta() = %d with After in tick 360100, want 360101", s.FirstDelta())
	}
	if first := s.Bits().Allocate(s.FirstDelta(), s.WorkerID(), 0); first <= ahead {
		t.Fatalf("the first ID %d is not above After %d", first, ahead)
	}
	if _, err := New(Params{Layout: s.Layout(), Assigner: uidgen.Static(3), Clock: clocktest.New(now), After: -5}); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), "After -5: want 0 (none) or more") {
		t.Fatalf("a negative After: %v, want %v naming After -5", err, uidgen.ErrConfig)
	}
	end := tickScheme(t, now, 0).Bits().Allocate(1<<39-1, 0, 0) // the last tick
	_, err := New(Params{Layout: s.Layout(), Assigner: uidgen.Static(3), Clock: clocktest.New(now), After: end})
	if !errors.Is(err, uidgen.ErrTimeExhausted) || !strings.Contains(err.Error(), strconv.FormatInt(end, 10)) {
		t.Fatalf("After in the layout's last tick: %v, want %v naming %d", err, uidgen.ErrTimeExhausted, end)
	}
}
