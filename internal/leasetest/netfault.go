package leasetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/faulttest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// NetStore is a Store its holders reach over TCP: RunNetFaults puts a
// faulttest.Proxy between a holder and it, and cuts the holder off while
// the holder's process runs on.
type NetStore interface {
	Store
	// Addr returns the host:port the store's clients dial.
	Addr() string
	// Via returns f as a holder that dials addr in place of Addr sees it:
	// the same table or key prefix, on a client of its own, closed when t
	// ends.
	Via(t testing.TB, f Fleet, addr string) Fleet
	// MinTTL returns the shortest lease TTL the store's leaser takes.
	MinTTL() time.Duration
}

// RunNetFaults runs the network fault scenarios on s, each on a fleet of
// its own: a holder cut off from the store, or hearing none of its
// replies, while a newcomer takes its worker ID over; and a fleet whose
// store is slow, or whose connections are reset over and over.
func RunNetFaults(t *testing.T, s NetStore) {
	for _, tt := range []struct {
		name string
		cut  func(t *testing.T, p *faulttest.Proxy, a lease) int64
	}{
		{"Partition", partition},
		{"ReplyLost", replyLost},
	} {
		t.Run(tt.name, func(t *testing.T) { cutOff(t, s, tt.cut) })
	}
	for _, tt := range []struct {
		name  string
		fault func(p *faulttest.Proxy, ttl time.Duration, stop <-chan struct{})
		bites bool // the holders through the proxy can not renew
	}{
		{"SlowStore", slowStore, true},
		{"Resets", resets, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if passed := fleetUnder(t, s, tt.fault); tt.bites && passed == 0 {
				t.Errorf("no worker ID passed to another holder, want one whose holder could not renew to")
			}
		})
	}
}

// partition blackholes the proxy: the holder's renewals reach nothing.
func partition(_ *testing.T, p *faulttest.Proxy, a lease) int64 {
	p.Blackhole()
	return a.Reserved()
}

// replyLost drops the store's replies, and has the holder renew until a
// renewal fails: the store applies it, and the holder does not hear, so
// the store records more than the holder's Reserved(). One renewal
// already on its way when the replies stopped may yet succeed.
func replyLost(t *testing.T, p *faulttest.Proxy, a lease) int64 {
	p.DropReplies()
	for i := 0; a.RenewNow(Context(t)) == nil; i++ {
		if i == 3 {
			t.Fatalf("%d renewals succeeded with the store's replies dropped", i+1)
		}
	}
	return a.Reserved()
}

// cutOff is the scenario of a holder cut off from the store while it runs:
// holder A leases worker ID 1 through a proxy, at the shortest TTL and
// horizon, and takes IDs from a cached generator on it; cut puts a fault
// between A and the store; newcomer B, connected directly, leases ID 1
// once it is free and takes IDs too; then the proxy heals. Every ID is
// unique and each holder's increase; A uses nothing past its Reserved(),
// and stops within its reservation, a renewal's failure and slack; B starts
// above both and above what the store recorded at the cut; and once healed,
// A's renewer finds the lease lost.
func cutOff(t *testing.T, s NetStore, cut func(t *testing.T, p *faulttest.Proxy, a lease) int64) {
	f := s.Fleet(t)
	p := faulttest.Start(t, s.Addr())
	ttl := s.MinTTL()
	pinned := Options{TTL: ttl, Horizon: leasing.MinHorizon, WorkerIDs: uidgen.WorkerIDRange{Min: 1, Max: 1}, Every: ttl / 3}
	// A stops once the clock passes its reservation, a horizon and a third
	// of the TTL past its last renewal, and a renewal after that has
	// failed, within a third of the TTL; the rest is a loaded machine's.
	stopBound := pinned.Horizon + ttl + 10*time.Second

	gA, a := OnLease[lease](t, leased(t, s.Via(t, f, p.Addr()), pinned), cached.Config{})
	const pace = time.Millisecond
	tookA := takeAll(gA.NextID, pace)
	cutAt := time.Now()
	known := cut(t, p, a)
	stored := f.Reserved(t, 1)
	if stored < known {
		t.Fatalf("the store records worker ID 1 reserved to %d, below %d, the holder's Reserved()", stored, known)
	}

	gB, b := OnLease[lease](t, leased(t, f, pinned), cached.Config{})
	var idsB []int64
	idtest.TakeUntil(t, &idsB, gB.NextID, pace, time.Now().Add(500*time.Millisecond))

	resA := awaitStop(t, tookA, a, cutAt, stopBound)
	p.Pass()
	lostBound := ttl + leasing.RetryDelay + 10*time.Second // a renewal's retry, on a loaded machine
	select {
	case <-a.Done():
	case <-time.After(lostBound):
		t.Fatalf("holder A's renewer runs %v after the proxy healed, want it stopped by a lost lease", lostBound)
	}
	t.Logf("A took %d IDs and stopped %v after the cut: %v; B took %d from second %d; A reserved to %d, the store %d at the cut",
		len(resA.ids), resA.at.Sub(cutAt).Round(time.Millisecond), resA.err, len(idsB), b.First(), a.Reserved(), stored)
	checkCutOff(t, gB, a, b, resA, idsB, stored)
}

// awaitStop returns what holder A took once it stopped, and fails t unless
// it stopped within bound of cutAt. A's stop is judged by when it failed,
// not by when this looks: B may have waited past the bound for A's lease
// to lapse.
func awaitStop(t *testing.T, tookA <-chan taken, a lease, cutAt time.Time, bound time.Duration) taken {
	t.Helper()
	var resA taken
	select {
	case resA = <-tookA:
	case <-time.After(time.Until(cutAt.Add(bound))):
		select {
		case resA = <-tookA:
		default:
			t.Fatalf("holder A still takes IDs %v after it was cut off, with %d reserved: want it stopped within %v",
				time.Since(cutAt), a.Reserved(), bound)
		}
	}
	if took := resA.at.Sub(cutAt); took > bound {
		t.Errorf("holder A stopped %v after it was cut off, with %d reserved: want it stopped within %v", took, a.Reserved(), bound)
	}
	return resA
}

// checkCutOff checks what cutOff's holders took: A stopped with a renewal's
// error or a lost lease, and then lost it; A used nothing past its
// Reserved(); B started above A's Reserved(), A's IDs and stored, what the
// store recorded at the cut; every ID unique and each holder's increasing.
func checkCutOff(t *testing.T, gB idtest.Parser, a, b lease, resA taken, idsB []int64, stored int64) {
	t.Helper()
	if !errors.Is(a.Err(), uidgen.ErrLeaseLost) {
		t.Errorf("holder A's lease after the proxy healed: %v, want %q", a.Err(), uidgen.ErrLeaseLost)
	}
	// Cut off, A's renewals time out: its generator says so, or that the
	// lease is lost where a renewal got through after B took over.
	if !errors.Is(resA.err, uidgen.ErrLeaseLost) && !errors.Is(resA.err, context.DeadlineExceeded) {
		t.Errorf("holder A's generator stopped with %v, its reservation ending at %d: want a renewal's timeout or %q",
			resA.err, a.Reserved(), uidgen.ErrLeaseLost)
	}
	layout := gB.Layout()
	lastA := int64(-1)
	for _, id := range resA.ids {
		lastA = max(lastA, layout.Parse(id).Time.Unix())
	}
	if lastA > a.Reserved() {
		t.Errorf("holder A handed out an ID of second %d, past its reservation's %d", lastA, a.Reserved())
	}
	if b.First() <= max(a.Reserved(), lastA, stored) {
		t.Errorf("holder B starts at second %d, not above A's reservation %d, A's last ID's second %d and the store's %d at the cut",
			b.First(), a.Reserved(), lastA, stored)
	}
	if len(idsB) > 0 && layout.Parse(idsB[0]).Time.Unix() <= lastA {
		t.Errorf("holder B's first ID is of second %d, not above A's last, %d", layout.Parse(idsB[0]).Time.Unix(), lastA)
	}
	if len(resA.ids) == 0 || len(idsB) == 0 {
		t.Errorf("A took %d IDs, B %d: want both to take some", len(resA.ids), len(idsB))
	}
	idtest.Check(t, gB, [][]int64{resA.ids, idsB})
}

// taken is what a goroutine took from a generator until a take failed.
type taken struct {
	ids []int64
	err error     // the failure that ended it
	at  time.Time // when
}

// takeAll takes from next every pace on a goroutine of its own until a
// take fails, and then sends what it took.
func takeAll(next func() (int64, error), pace time.Duration) <-chan taken {
	done := make(chan taken, 1)
	go func() {
		var r taken
		for {
			id, err := next()
			if err != nil {
				r.err, r.at = err, time.Now()
				done <- r
				return
			}
			r.ids = append(r.ids, id)
			time.Sleep(pace)
		}
	}()
	return done
}
