package fleettest

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// comeBack bounds how long after its holder's death Crash waits for worker
// ID 1 to come back: the lease's TTL, then up to a second until the
// newcomer looks for a free ID again (both stores look every second), and
// the newcomer's start and its first requests, which on a loaded 2-core
// machine under -race take several seconds. A lease that kept a store's
// default TTL of 30 s would not come back within it.
const comeBack = LeaseTTL + 13*time.Second

// Reuse runs 60 lifetimes of gen, up to 6 at once, on a layout of 7 worker
// IDs leased from a store of newStore: every process leases an ID in 1..7, IDs come back,
// and a later holder of an ID uses only seconds above its earlier
// holders', so no ID is printed twice.
func Reuse(t *testing.T, newStore NewStore) {
	const lifetimes, alive = 60, 6
	perProcess := sizetest.Pick(50_000, 20_000)
	f := New(t, newStore(t), SevenWorkers)
	args := f.Args(perProcess)

	procs := make([]*Process, lifetimes)
	errs := make([]error, lifetimes)
	slots := make(chan struct{}, alive)
	var running, peak atomic.Int64
	var wg sync.WaitGroup
	for i := range procs {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			p, err := f.Start(args)
			if err != nil {
				errs[i] = err
				return
			}
			defer p.End()
			n := running.Add(1)
			for m := peak.Load(); n > m && !peak.CompareAndSwap(m, n); m = peak.Load() {
			}
			errs[i] = p.Finish()
			running.Add(-1)
			procs[i] = p
		})
	}
	wg.Wait()

	var all [][]int64
	for i, p := range procs {
		if errs[i] != nil {
			stderr := ""
			if p != nil {
				stderr = p.Stderr()
			}
			t.Fatalf("lifetime %d: %v: %s", i, errs[i], stderr)
		}
		if len(p.IDs) != perProcess {
			t.Fatalf("lifetime %d printed %d IDs, want %d", i, len(p.IDs), perProcess)
		}
		all = append(all, p.IDs)
	}
	byWorker := CheckHolders(t, f.Layout, procs)
	// Processes that overlapped held different IDs; with none overlapping
	// every one would have leased ID 1, the lowest free.
	if len(byWorker) < 2 {
		t.Fatalf("all %d lifetimes leased one worker ID (peak %d alive): the processes never overlapped", lifetimes, peak.Load())
	}
	n := CheckUnique(t, f.Layout.ParseUID, all...)
	t.Logf("%d lifetimes, up to %d alive at once, %d worker IDs, %d IDs, all unique", lifetimes, peak.Load(), len(byWorker), n)
}

// CheckHolders checks the IDs of procs, each of which printed at least one:
// each process's carry one worker ID, in the layout's range, and increase;
// and the later holders of a worker ID, in the order of their first IDs,
// start above every second of the earlier ones. It returns the processes by
// worker ID, in that order.
func CheckHolders(t testing.TB, layout uidgen.Layout, procs []*Process) map[int64][]*Process {
	t.Helper()
	byWorker := make(map[int64][]*Process)
	for _, p := range procs {
		w := p.WorkerOf(t, layout)
		if w < 1 || w > layout.Bits().MaxWorkerID() {
			t.Fatalf("pid %d leased worker ID %d, want 1 to %d", p.Pid(), w, layout.Bits().MaxWorkerID())
		}
		byWorker[w] = append(byWorker[w], p)
	}
	for _, holders := range byWorker {
		slices.SortFunc(holders, func(a, b *Process) int { return cmp.Compare(a.IDs[0], b.IDs[0]) })
		for i := 1; i < len(holders); i++ {
			CheckAfter(t, layout, holders[i-1], holders[i])
		}
	}
	return byWorker
}

// Crash kills the holder of the only worker ID mid-run, so that it never
// releases its lease: the ID comes back to a new process once the lease's
// TTL passes, and the new process prints no ID the dead one did.
func Crash(t *testing.T, newStore NewStore) {
	const nextN = 100_000
	f := New(t, newStore(t), OneWorker)
	dead := f.Gen(t, 10_000_000)
	killed := dead.KillAfter(t, "the holder", 10_000)
	// The last renewal before the kill left at least two thirds of the TTL;
	// past that, the lease may have expired by itself, which says nothing.
	held, _, err := f.Store.One(f.ctx)
	if err != nil || !held && time.Since(killed) < LeaseTTL*2/3 {
		t.Fatalf("after the kill worker ID 1 is held: %v, %v; want held: the dead never release", held, err)
	}

	next := f.Gen(t, nextN)
	if err := next.Read(1); err != nil || len(next.IDs) != 1 {
		next.End()
		t.Fatalf("the next process printed no ID: %v: %s", err, next.Stderr())
	}
	back := time.Since(killed)
	if err := next.Finish(); err != nil || len(next.IDs) != nextN {
		t.Fatalf("the next process: %d IDs, %v: %s", len(next.IDs), err, next.Stderr())
	}
	if back >= comeBack {
		t.Fatalf("the ID came back %v after the kill, want within %v: a -lease-ttl of %v and a look every second",
			back, comeBack, LeaseTTL)
	}
	if w, v := dead.WorkerOf(t, f.Layout), next.WorkerOf(t, f.Layout); w != 1 || v != 1 {
		t.Fatalf("worker IDs %d and %d, want 1 and 1", w, v)
	}
	CheckAfter(t, f.Layout, dead, next)
	CheckUnique(t, f.Layout.ParseUID, dead.IDs, next.IDs)
	t.Logf("the killed holder printed %d IDs; worker ID 1 came back %v after the kill, to a process that printed %d",
		len(dead.IDs), back.Round(time.Millisecond), len(next.IDs))
}

// Pause stops the holder of the only worker ID (SIGSTOP) past its lease's
// TTL, lets a new process take the ID, and lets the first go on (SIGCONT):
// the first either finishes within the seconds it had reserved or fails
// with uidgen.ErrLeaseLost, and nothing the two print repeats. The cached
// generator borrows seconds, and reserves them, at the pace it fills its
// ring; the default one uses the clock's, so after the pause its next
// second is past what it reserved.
//
// The pause catches the holder blocked on its stdout, the test having
// stopped reading, once its reservation is past what its ring and the pipe
// can hold. A pause that caught a take of the cached generator waiting for
// a renewal would fail that take on SIGCONT, before the lease is found
// lost: the take's wait counts the stopped time against its limit, so it
// fails wrapping ringbuffer.ErrEmpty, saying the reservation runs out.
func Pause(t *testing.T, newStore NewStore) {
	for _, tt := range []struct {
		generator string
		n, before int // IDs the paused process makes, and prints before the pause
	}{
		{"cached", 2_000_000, 10_000},
		{"default", 10_000_000, 1_000}, // more than it makes before the test's timeout
	} {
		t.Run(tt.generator, func(t *testing.T) { pause(t, newStore(t), tt.generator, tt.n, tt.before) })
	}
}

func pause(t *testing.T, s Store, generator string, pausedN, before int) {
	const nextN = 200_000
	f := New(t, s, OneWorker)
	paused := f.Gen(t, pausedN, "-generator", generator)
	if err := paused.Read(before); err != nil || len(paused.IDs) < before {
		paused.End()
		t.Fatalf("the holder printed %d IDs, %v: %s", len(paused.IDs), err, paused.Stderr())
	}
	if generator == "cached" {
		// The ring holds 8 seconds, the pipe about one.
		f.waitReserved(t, f.Layout.Parse(paused.IDs[len(paused.IDs)-1]).Time.Unix()+16)
	}
	release := func() {}
	if q, ok := s.(Quieter); ok {
		release = q.Quiet(t)
	}
	err := paused.Signal(syscall.SIGSTOP)
	release()
	if err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	next := f.Gen(t, nextN)
	if err := next.Read(1); err != nil || len(next.IDs) != 1 {
		next.End()
		t.Fatalf("the next process printed no ID: %v: %s", err, next.Stderr())
	}
	took := time.Since(stopped)
	if err := paused.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}

	var pausedErr, nextErr error
	var wg sync.WaitGroup
	wg.Go(func() { pausedErr = paused.Finish() })
	wg.Go(func() { nextErr = next.Finish() })
	wg.Wait()
	if nextErr != nil || len(next.IDs) != nextN {
		t.Fatalf("the next process: %d IDs, %v: %s", len(next.IDs), nextErr, next.Stderr())
	}
	observed := "finished within its reserved seconds"
	if pausedErr != nil || len(paused.IDs) != pausedN {
		why, ok := FailedAtReservation(paused.Stderr())
		if pausedErr == nil || !ok {
			t.Fatalf("the resumed holder printed %d of %d IDs and ended with %v: %s; want all of them, or a failure at its reservation",
				len(paused.IDs), pausedN, pausedErr, paused.Stderr())
		}
		observed = "failed, " + why + ": " + strings.TrimSpace(paused.Stderr())
	}
	if w, v := paused.WorkerOf(t, f.Layout), next.WorkerOf(t, f.Layout); w != 1 || v != 1 {
		t.Fatalf("worker IDs %d and %d, want 1 and 1", w, v)
	}
	CheckAfter(t, f.Layout, paused, next)
	CheckUnique(t, f.Layout.ParseUID, paused.IDs, next.IDs)
	t.Logf("stopped %v until the next process took worker ID 1; it printed %d IDs; the resumed holder printed %d in all and %s",
		took.Round(time.Millisecond), len(next.IDs), len(paused.IDs), observed)
}

// Why a holder that failed failed, as FailedAtReservation tells it.
const (
	LeaseLost      = "lease lost"
	RenewalFailure = "renewal failure"
)

// FailedAtReservation reports whether a holder that failed with stderr
// failed as a holder may, at the end of its reservation, and says which
// way: LeaseLost where it found another process had its worker ID
// (uidgen.ErrLeaseLost), RenewalFailure where the renewal that could have
// moved the reservation failed, or where a take gave up waiting for that
// renewal. A loaded machine, or a store that answers late (an etcd client
// reconnects after SIGCONT), may time a resumed holder's first renewal out
// before the renewal finds the lease lost: either way the holder stops at
// its reservation, which is what keeps the IDs apart.
func FailedAtReservation(stderr string) (string, bool) {
	switch {
	case strings.Contains(stderr, uidgen.ErrLeaseLost.Error()):
		return LeaseLost, true
	case strings.Contains(stderr, "renewing it failed"), strings.Contains(stderr, "waiting for a renewal"):
		return RenewalFailure, true
	}
	return "", false
}

// waitReserved waits, polling the store, until the only worker ID's
// reservation reaches second sec.
func (f *Fleet) waitReserved(t *testing.T, sec int64) {
	t.Helper()
	for {
		_, reserved, err := f.Store.One(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if reserved >= sec {
			return
		}
		select {
		case <-f.ctx.Done():
			t.Fatalf("the reservation never reached second %d: it ends at %d", sec, reserved)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
