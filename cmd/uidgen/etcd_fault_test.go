package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/etcdtest"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// waitHealthy waits until every running, unpaused member of c answers with
// a leader, within ctx.
func waitHealthy(t *testing.T, ctx context.Context, c *etcdtest.Cluster) {
	t.Helper()
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
}

// follower returns the index of a member of c that is not the leader.
func follower(t *testing.T, ctx context.Context, c *etcdtest.Cluster) int {
	t.Helper()
	leader, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return (leader + 1) % len(c.Endpoints())
}

// The partitioned holder's lease and horizon. The TTL is etcd's least, so
// the newcomer waits about 2 s for the holder's key to expire. The horizon
// keeps the holder going, one second a second with the default generator,
// for 8 s and a third of the TTL after its last renewal: past the pause
// (the TTL, then up to a second until the newcomer looks again, and the
// newcomer's start, about 3 s in all) and the first renewal after the
// resume (a third of the TTL), with some 4 s to spare on a loaded machine.
// So the holder is still within its reservation when the resumed member
// tells it the lease is gone, and the test ends some 9 to 13 s after the
// pause. Should the paused member be the leader, an election and a TTL
// more pass before the newcomer's take, which the spare seconds cover.
const (
	partitionTTL     = 2 * time.Second
	partitionHorizon = 8 * time.Second
)

// TestLeasePartition cuts the holder of the only worker ID off from the
// cluster: its -etcd names one member, a follower when picked, which is
// paused (SIGSTOP) past the lease's TTL while a newcomer, on the other
// members, takes the ID over; then the member is resumed. The old holder must stop at its
// reservation, failing with uidgen.ErrLeaseLost (or, where the resumed
// member's first answer times out, a renewal failure), and the newcomer's
// IDs must all be above the old holder's.
func TestLeasePartition(t *testing.T) {
	// The default generator prints at most 2^12 IDs a second: holderN is
	// more than the holder makes before its reservation ends, so it can
	// only end by failing; the newcomer's cached generator borrows its
	// seconds, so nextN takes it no time.
	const holderN, nextN = 1_000_000, 20_000
	c := etcdtest.Start(t, 3)
	m := follower(t, t.Context(), c)
	cutOff := newFleetStore(t, c, c.Member(m).Endpoint())
	var others []string
	for i, e := range c.Endpoints() {
		if i != m {
			others = append(others, e)
		}
	}
	rest := *cutOff
	rest.endpoints = others
	f, g := fleettest.New(t, cutOff, fleettest.OneWorker), fleettest.New(t, &rest, fleettest.OneWorker)
	lease := fleettest.LeaseFlags(partitionTTL, partitionHorizon)

	holder, err := f.Start(f.Args(holderN, append(lease, "-generator", "default")...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(holder.End)
	if err := holder.Read(1000); err != nil || len(holder.IDs) < 1000 {
		holder.End()
		t.Fatalf("the holder printed %d IDs, %v: %s", len(holder.IDs), err, holder.Stderr())
	}
	// From here one goroutine reads the holder to its end; a test that
	// fails kills it and waits for that goroutine, which alone may wait
	// for the process.
	var holderErr error
	holderDone := make(chan struct{})
	go func() {
		defer close(holderDone)
		holderErr = holder.Finish()
	}()
	t.Cleanup(func() {
		holder.Signal(syscall.SIGKILL)
		<-holderDone
	})

	// A stall of the loaded machine past the election timeout can have
	// made the holder's member the leader since it was picked. Pausing it
	// cuts the holder off all the same; the other two elect a leader
	// (about a second), which renews every lease to its full TTL, so the
	// newcomer takes the ID about a TTL after the election: some 5 s
	// into the pause rather than 3, still within the horizon.
	if leader, err := c.Leader(f.Context()); err != nil {
		t.Fatal(err)
	} else if leader == m {
		t.Logf("member %d, the holder's, became the leader; pausing it all the same", m)
	}
	c.Member(m).Pause()
	paused := time.Now()
	next, err := g.Start(g.Args(nextN, lease...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(next.End)
	if err := next.Read(1); err != nil || len(next.IDs) != 1 {
		next.End()
		t.Fatalf("the newcomer printed no ID: %v: %s", err, next.Stderr())
	}
	took := time.Since(paused)
	c.Member(m).Resume()
	if err := next.Finish(); err != nil || len(next.IDs) != nextN {
		t.Fatalf("the newcomer: %d IDs, %v: %s", len(next.IDs), err, next.Stderr())
	}

	<-holderDone
	ended := time.Since(paused)
	var exit *exec.ExitError
	why, ok := fleettest.FailedAtReservation(holder.Stderr())
	if !errors.As(holderErr, &exit) || exit.ExitCode() != 1 || !ok {
		t.Fatalf("the cut-off holder printed %d IDs and ended with %v: %s; want a failure at its reservation",
			len(holder.IDs), holderErr, holder.Stderr())
	}
	if w, v := holder.WorkerOf(t, f.Layout), next.WorkerOf(t, f.Layout); w != 1 || v != 1 {
		t.Fatalf("worker IDs %d and %d, want 1 and 1", w, v)
	}
	fleettest.CheckAfter(t, f.Layout, holder, next)
	fleettest.CheckUnique(t, f.Layout.ParseUID, holder.IDs, next.IDs)
	t.Logf("member %d paused %v until the newcomer took worker ID 1 and printed %d IDs; the cut-off holder printed %d and, %v after the pause, met %s: %s",
		m, took.Round(time.Millisecond), len(next.IDs), len(holder.IDs), ended.Round(time.Millisecond), why, holder.Stderr())
}

// The chaos test's lease: etcd's least TTL, so that the IDs of killed and
// paused holders come back within seconds, and a horizon that rides out
// the leader's loss (a new leader within about 2 s) and a follower's pause,
// to which a process's client sends every third request, yet is short
// enough that a holder paused past its TTL runs out of it soon after it
// is resumed.
const (
	chaosTTL     = 2 * time.Second
	chaosHorizon = 3 * time.Second
)

// fate is how a lifetime of TestLeaseChaos ends.
type fate int

const (
	finishes        fate = iota // prints its n IDs and releases its ID
	killed                      // SIGKILL mid-run
	resumed                     // SIGSTOP past the TTL, then SIGCONT
	pausedAndKilled             // SIGSTOP past the TTL, then SIGKILL
	fates
)

func (f fate) String() string {
	return [...]string{"finishes", "killed", "resumed", "paused and killed"}[f]
}

// lifetime is one process of TestLeaseChaos and how it ended.
type lifetime struct {
	fate fate
	p    *fleettest.Process
	err  error // Finish's, or why the process did not start
}

// TestLeaseChaos runs 70 lifetimes of gen, up to 6 at once, on a layout of
// 7 worker IDs, whose processes end cleanly, by SIGKILL, or paused past
// their TTL and then resumed or killed; meanwhile the cluster's leader is
// killed and restarted, and a follower paused and resumed. Every ID any
// process printed is unique, a later holder of a worker ID starts above
// every second of the earlier ones, and a process that failed failed at
// its reservation.
//
// Killed processes print what they printed before they died, which is all
// the test reads of them. The pauses, of holders and of the member, are
// the faults themselves: how long they last decides which failures the
// processes meet, never whether an ID repeats.
func TestLeaseChaos(t *testing.T) {
	const alive = 6
	lifetimes := sizetest.Pick(70, 28)
	perProcess := sizetest.Pick(100_000, 30_000)
	c := etcdtest.Start(t, 3)
	f := fleettest.New(t, newFleetStore(t, c), fleettest.SevenWorkers)
	lease := fleettest.LeaseFlags(chaosTTL, chaosHorizon)
	// A resumed process makes more IDs, hundreds of seconds of them: its
	// cached generator borrows seconds, and they are reserved, at the pace
	// it fills its ring, so with few IDs left it would finish within what
	// it reserved before the pause, and never meet its lost lease.
	args := func(d fate) []string {
		if d == resumed {
			return f.Args(10*perProcess, lease...)
		}
		return f.Args(perProcess, lease...)
	}

	// The faults start once a sixth and half of the lifetimes have.
	killLeader, pauseFollower := make(chan struct{}), make(chan struct{})
	runs := make([]lifetime, lifetimes)
	var wg sync.WaitGroup
	launched := make(chan struct{})
	go func() {
		defer close(launched)
		slots := make(chan struct{}, alive)
		for i := range runs {
			slots <- struct{}{}
			switch i {
			case lifetimes / 6:
				close(killLeader)
			case lifetimes / 2:
				close(pauseFollower)
			}
			d := fate(i % int(fates))
			wg.Go(func() {
				defer func() { <-slots }()
				runs[i] = live(f.Context(), args(d), d, i)
			})
		}
	}()

	<-killLeader
	leader, err := c.Leader(f.Context())
	if err != nil {
		t.Fatal(err)
	}
	down := time.Now()
	c.Member(leader).Kill()
	waitHealthy(t, f.Context(), c)
	elected := time.Since(down)
	c.Member(leader).Restart()
	waitHealthy(t, f.Context(), c)
	rejoined := time.Since(down)

	<-pauseFollower
	m := follower(t, f.Context(), c)
	const memberPause = 4 * time.Second
	c.Member(m).Pause()
	time.Sleep(memberPause)
	c.Member(m).Resume()
	waitHealthy(t, f.Context(), c)

	<-launched
	wg.Wait()

	byWorker, n, outcomes := judge(t, f.Layout, runs)
	t.Logf("leader member %d killed: a new leader after %v, rejoined after %v; member %d paused %v",
		leader, elected.Round(time.Millisecond), rejoined.Round(time.Millisecond), m, memberPause)
	t.Logf("%d lifetimes, %d worker IDs, %d IDs, all unique; outcomes %v", lifetimes, len(byWorker), n, outcomes)
}

// judge checks how each of runs ended (outcome) and every ID they printed:
// unique, and each worker ID's later holders above its earlier ones. It
// returns the holders of each worker ID, how many IDs there were, and how
// many lifetimes ended each way.
func judge(t *testing.T, layout uidgen.Layout, runs []lifetime) (map[int64][]*fleettest.Process, int, map[string]int) {
	t.Helper()
	var holders []*fleettest.Process
	var lists [][]int64
	outcomes := map[string]int{}
	for i, r := range runs {
		if r.p == nil {
			t.Fatalf("lifetime %d did not start: %v", i, r.err)
		}
		outcome, err := r.outcome()
		if err != nil {
			t.Fatalf("lifetime %d (%v, pid %d, %d IDs): %v", i, r.fate, r.p.Pid(), len(r.p.IDs), err)
		}
		outcomes[r.fate.String()+": "+outcome]++
		if len(r.p.IDs) > 0 {
			holders = append(holders, r.p)
			lists = append(lists, r.p.IDs)
		}
	}
	return fleettest.CheckHolders(t, layout, holders), fleettest.CheckUnique(t, layout.ParseUID, lists...), outcomes
}

// live runs lifetime i of args to its fate d, under ctx: it reads some
// IDs, leaves the process blocked on its stdout a while, longer the later
// in a cycle of seven, so that the lifetimes end at times of their own,
// and then ends it.
func live(ctx context.Context, args []string, d fate, i int) lifetime {
	p, err := fleettest.Start(ctx, args...)
	if err != nil {
		return lifetime{fate: d, err: err}
	}
	defer p.End()
	r := lifetime{fate: d, p: p}
	if err := p.Read(5000); err != nil {
		r.err = err
		return r
	}
	time.Sleep(time.Duration(1+i%7) * 200 * time.Millisecond)
	switch d {
	case killed, pausedAndKilled:
		if d == pausedAndKilled {
			p.Signal(syscall.SIGSTOP)
			time.Sleep(chaosTTL + 2*time.Second)
		}
		p.Signal(syscall.SIGKILL)
	case resumed:
		p.Signal(syscall.SIGSTOP)
		time.Sleep(chaosTTL + 2*time.Second)
		p.Signal(syscall.SIGCONT)
	}
	r.err = p.Finish()
	return r
}

// outcome says how the lifetime ended, or why that is not how it may:
// killed where it was to be, finished where it was not, or failed at its
// reservation, whatever its fate.
func (r lifetime) outcome() (string, error) {
	var exit *exec.ExitError
	switch {
	case r.err == nil:
		if r.fate == killed || r.fate == pausedAndKilled {
			return "", fmt.Errorf("exited 0 before the SIGKILL sent it, printing %d IDs", len(r.p.IDs))
		}
		return "finished", nil
	case !errors.As(r.err, &exit):
		return "", r.err
	case exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL && (r.fate == killed || r.fate == pausedAndKilled):
		return "killed", nil
	}
	if why, ok := fleettest.FailedAtReservation(r.p.Stderr()); ok && exit.ExitCode() == 1 {
		return why, nil
	}
	return "", fmt.Errorf("%v: %s", r.err, r.p.Stderr())
}
