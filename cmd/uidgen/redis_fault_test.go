package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/redistest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
	"github.com/seed4d941b13/uidgen/redisworker"
)

// The faults of a Redis deployment under a fleet of `uidgen gen`
// processes: the server killed and restarted from its append-only file,
// the server paused past the lease's TTL, and a primary lost to a Sentinel
// failover.

// redisServerDown is how long TestRedisLeaseChaos keeps the killed server
// down: long enough that the processes' requests fail (takes, renewals,
// releases, each retried), and within the chaos lease's horizon, which
// holders ride it out on. redisServerPause is how long the server is
// paused: past the TTL, so that when it runs again every held key it kept
// has expired.
const (
	redisServerDown  = time.Second
	redisServerPause = chaosTTL + 2*time.Second
)

// TestRedisLeaseChaos runs 70 lifetimes of `gen -redis`, up to 6 at once,
// on a layout of 7 worker IDs, whose processes end cleanly, by SIGKILL, or
// paused past their TTL and then resumed or killed (TestLeaseChaos's
// lifetimes, on etcd's chaos lease, which a restarted server's reconnect
// fits as well as an etcd election does). Meanwhile, each time with
// worker IDs held, the server is paused past the TTL (SIGSTOP, then
// SIGCONT), which expires every held key, and later killed (SIGKILL) and
// restarted from its append-only file, synced at every write. Every ID
// any process printed is unique, a later holder of a worker ID starts
// above every second of the earlier ones, and a process that failed failed
// at its reservation.
//
// The kill is what the append-only file is for: a reservation that Redis
// acknowledged and then forgot would let a later holder start inside a
// second an earlier one used (on a server without persistence this test
// fails so: a later holder starts at or below an earlier one's second).
// The pause runs the requests that clients gave up on once the server
// runs again, after the client has retried them: takes, renewals and
// releases that land late, which the scripts must ignore or keep harmless.
func TestRedisLeaseChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a throwaway Redis server to pause, kill and restart; runs in the full suite (without -short)")
	}
	const alive = 6
	lifetimes := sizetest.Pick(70, 28)
	perProcess := sizetest.Pick(100_000, 30_000)
	s := redistest.Start(t)
	store := &redisFleet{args: []string{"-redis", s.URL()}, prefix: "{chaos}:", cfg: redisworker.Config{Client: s.Client(t), Prefix: "{chaos}:"}}
	f := fleettest.New(t, store, fleettest.SevenWorkers)
	lease := fleettest.LeaseFlags(chaosTTL, chaosHorizon)
	// A resumed process makes more IDs, as in TestLeaseChaos, so that it
	// meets its lost lease.
	args := func(d fate) []string {
		if d == resumed {
			return f.Args(10*perProcess, lease...)
		}
		return f.Args(perProcess, lease...)
	}

	// The faults start once a sixth and half of the lifetimes have.
	pauseServer, killServer := make(chan struct{}), make(chan struct{})
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
				close(pauseServer)
			case lifetimes / 2:
				close(killServer)
			}
			d := fate(i % int(fates))
			wg.Go(func() {
				defer func() { <-slots }()
				runs[i] = live(f.Context(), args(d), d, i)
			})
		}
	}()

	ended := make(chan struct{}) // closed once every lifetime has ended
	go func() {
		<-launched
		wg.Wait()
		close(ended)
	}()

	<-pauseServer
	paused := waitHeld(t, f.Context(), store.cfg, faultHeld, ended)
	if paused {
		s.Pause()
		time.Sleep(redisServerPause)
		s.Resume()
	}

	<-killServer
	var restarted time.Duration
	killed := waitHeld(t, f.Context(), store.cfg, faultHeld, ended)
	if killed {
		s.Kill()
		down := time.Now()
		time.Sleep(redisServerDown)
		s.Restart()
		restarted = time.Since(down)
	}

	<-ended

	byWorker, n, outcomes := judge(t, f.Layout, runs)
	if !paused || !killed {
		t.Fatalf("the lifetimes ended before the server's faults met %d held worker IDs (paused %v, killed %v); outcomes %v",
			faultHeld, paused, killed, outcomes)
	}
	t.Logf("server paused %v; killed, and answering again from its append-only file %v later",
		redisServerPause, restarted.Round(time.Millisecond))
	t.Logf("%d lifetimes, %d worker IDs, %d IDs, all unique; outcomes %v", lifetimes, len(byWorker), n, outcomes)
}

// faultHeld is how many worker IDs TestRedisLeaseChaos waits to see held
// before each fault on the server, so that the fault meets holders, and
// not only processes starting: the lifetimes that start as a fault comes
// are still taking their IDs.
const faultHeld = 3

// waitHeld waits, polling, until at least n worker IDs of cfg's fleet
// are held, and reports true; or until ended closes, and reports false.
// It fails t if ctx ends first.
func waitHeld(t *testing.T, ctx context.Context, cfg redisworker.Config, n int, ended <-chan struct{}) bool {
	t.Helper()
	for {
		rows, err := redisworker.List(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		held := 0
		for _, r := range rows {
			if r.Held {
				held++
			}
		}
		if held >= n {
			return true
		}
		select {
		case <-ended:
			return false
		case <-ctx.Done():
			t.Fatalf("%d worker IDs held, want %d: %v", held, n, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// sentinelFleet is a fleet under a prefix of its own on the primary that
// Sentinels watch, whose processes wait for one replica to acknowledge
// each reservation: a fleettest.Store.
type sentinelFleet struct {
	sentinels *redistest.Sentinels
	prefix    string
	cfg       redisworker.Config // for One and List, through a failover client
}

func (f *sentinelFleet) Args() []string {
	return []string{"-redis-sentinel", strings.Join(f.sentinels.Addrs(), ","), "-redis-master", f.sentinels.Name(),
		"-redis-replicas", "1", "-redis-prefix", f.prefix}
}

func (f *sentinelFleet) One(ctx context.Context) (held bool, reserved int64, err error) {
	rows, err := redisworker.List(ctx, f.cfg)
	if err != nil {
		return false, 0, err
	}
	if len(rows) != 1 || rows[0].ID != 1 {
		return false, 0, fmt.Errorf("the fleet under %s holds %+v, want worker ID 1 alone", f.prefix, rows)
	}
	return rows[0].Held, rows[0].Reserved, nil
}

// The failover test's lease, and its bounds, each by what it waits for.
//
// A holder renews every third of the TTL. From the kill until the old
// primary is back as the new one's replica, no renewal is acknowledged: one
// sent to the dead primary fails, one sent to the new primary runs its
// script (restarting the held key's TTL there) but WAIT 1 finds no replica.
// The holder retries every second and goes on within what it reserved.
//
//   - The held keys on the replica were renewed at most a third of the TTL
//     before the kill, so they outlive it by two thirds (40 s) unless a
//     renewal reaches the new primary first: the promotion must come
//     within that. The Sentinels need the primary down to two of them for
//     a second, an election and the replica's promotion, a few seconds; a
//     Sentinel that a stalled machine puts in TILT mode waits 30 s more.
//   - The old primary stays down for a third of the TTL (20 s), so every
//     holder's renewal meets the outage. Restarted, it is made a replica
//     once it has answered as a primary for eight seconds, then syncs:
//     within rejoin.
//   - A holder has a whole horizon reserved when Redis stops answering
//     (a renewal reserves a third of the TTL more, and comes every third),
//     and uses about a second a second: the horizon outlasts promotion,
//     or primaryDown, and rejoin together (100 s), so no take waits for a
//     renewal.
//
// Sentinels hear of each other, and of the replica, every two seconds:
// they are ready within sentinelsReady.
const (
	failoverTTL     = time.Minute
	failoverHorizon = 2 * time.Minute

	sentinelsReady = 60 * time.Second
	promotion      = failoverTTL * 2 / 3
	primaryDown    = failoverTTL / 3
	rejoin         = 60 * time.Second
	lateTake       = 30 * time.Second // a take's next WAIT after the rejoin, on a loaded machine
)

// TestRedisSentinelFailover runs a fleet of `gen -redis-sentinel
// -redis-replicas 1` processes through a Sentinel failover: a primary, one
// replica and three Sentinels. Four holders take IDs at a steady pace, the
// test reading each at 500 IDs a second (a process writes only as fast as
// its stdout is read); a fifth takes the next ID and leaves before the
// fault, freeing it. The primary is SIGKILLed and the Sentinels promote the
// replica, which then has no replica of its own: WAIT 1 fails until, a
// third of the TTL after the kill, the old primary is restarted from its
// append-only file and the Sentinels make it the new primary's replica.
// Right after the promotion a cached generator in the test's process
// (redisworker.NewLeased on a failover client, Replicas 1) asks for a
// lease, and gets one once the replica is back; two newcomer processes
// start then.
//
// No take fails (each process prints all its IDs and exits 0, the
// generator's NextID never fails), every holder met a failed renewal and
// went on, no ID repeats, every holder's worker ID is still held by it on
// the new primary, and the generator and the newcomers take free IDs, the
// leaver's above its last second, never a live holder's.
func TestRedisSentinelFailover(t *testing.T) {
	const (
		holders, newcomers = 4, 2
		batch, pace        = 50, 100 * time.Millisecond // 500 IDs a second a process
		leaverN            = 2_000
		// More than the test reads at its pace within its deadline; the
		// rest is read at full speed at the end.
		perProcess = 150_000
		steady     = 3 * time.Second // of steady takes before the kill and after the newcomers start
	)
	primary := redistest.Start(t)
	replica := redistest.StartReplica(t, primary)
	sentinels := redistest.StartSentinels(t, primary, "uidgen", 3)
	c := sentinels.NewClient()
	t.Cleanup(func() { c.Close() })
	store := &sentinelFleet{sentinels: sentinels, prefix: "{failover}:",
		cfg: redisworker.Config{Client: c, Prefix: "{failover}:"}}
	f := fleettest.New(t, store, fleettest.SevenWorkers)
	ctx, cancel := context.WithTimeout(t.Context(), sentinelsReady+promotion+primaryDown+rejoin+2*time.Minute)
	defer cancel()
	within := func(d time.Duration, what string, wait func(context.Context) error) time.Duration {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		start := time.Now()
		if err := wait(ctx); err != nil {
			t.Fatalf("%s within %v: %v", what, d, err)
		}
		return time.Since(start)
	}
	within(sentinelsReady, "the replica in sync and the Sentinels ready", func(ctx context.Context) error {
		if err := primary.WaitReplicas(ctx, 1); err != nil {
			return err
		}
		return sentinels.WaitPrimary(ctx, primary.Addr(), 1)
	})

	lease := fleettest.LeaseFlags(failoverTTL, failoverHorizon)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// start starts a process of n IDs and waits for its first ID; a
	// goroutine then reads it at the pace until stop, and then to its end.
	start := func(name string, n int) *pacedProcess {
		t.Helper()
		p, err := fleettest.Start(ctx, f.Args(n, lease...)...)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Read(1); err != nil || len(p.IDs) != 1 {
			p.End()
			t.Fatalf("%s printed no ID: %v: %s", name, err, p.Stderr())
		}
		r := &pacedProcess{name: name, n: n, p: p, worker: f.Layout.Parse(p.IDs[0]).WorkerID, done: make(chan struct{})}
		wg.Go(func() { r.run(stop, batch, pace) })
		// The reader alone waits for the process: a test that fails kills
		// it, by its PID, and waits for the reader.
		t.Cleanup(func() {
			p.Signal(syscall.SIGKILL)
			<-r.done
		})
		return r
	}

	var all, live []*pacedProcess
	for i := range holders {
		h := start(fmt.Sprintf("holder %d", i+1), perProcess)
		all, live = append(all, h), append(live, h)
	}
	leaver := start("the leaver", leaverN)
	all = append(all, leaver)
	<-leaver.done // read at the pace to its end: 4 s
	if leaver.err != nil || len(leaver.p.IDs) != leaverN {
		t.Fatalf("the leaver printed %d of %d IDs and ended with %v: %s", len(leaver.p.IDs), leaverN, leaver.err, leaver.p.Stderr())
	}
	time.Sleep(steady)

	primary.Kill()
	killed := time.Now()
	var newPrimary string
	promoted := within(promotion, "a promotion after the primary's SIGKILL", func(ctx context.Context) (err error) {
		newPrimary, err = sentinels.WaitPromotion(ctx, primary.Addr())
		return err
	})
	if newPrimary != replica.Addr() {
		t.Fatalf("the Sentinels promoted %s, want the replica %s", newPrimary, replica.Addr())
	}
	// A generator started now, in this process, asks for a lease while the
	// new primary has no replica: its take holds a free ID and waits until
	// a replica acknowledges it. gen waits 10 s for a lease, less than the
	// old primary takes to come back.
	early := startEarly(ctx, redisworker.Config{Client: c, Prefix: store.prefix, Replicas: 1,
		LeaseTTL: failoverTTL, LeaseHorizon: failoverHorizon}, primaryDown+rejoin+lateTake)
	t.Cleanup(func() {
		<-early.up
		if early.g != nil {
			early.g.Close()
		}
	})
	time.Sleep(time.Until(killed.Add(primaryDown))) // the holders take on, unrenewed
	primary.Restart()
	rejoined := within(rejoin, "the old primary as the new one's replica", func(ctx context.Context) error {
		return replica.WaitReplicas(ctx, 1)
	})
	outage := time.Since(killed)
	<-early.up // within lateTake of the rejoin: its take tries WAIT every second
	if early.err != nil {
		t.Fatalf("the generator started after the promotion: %v", early.err)
	}
	wg.Go(func() { early.run(stop, batch, pace) })

	// Every live holder's ID is held on the new primary, by that holder.
	rows, err := redisworker.List(ctx, store.cfg)
	if err != nil {
		t.Fatal(err)
	}
	held := map[int64]int{} // worker ID -> holder's PID
	for _, r := range rows {
		if r.Held {
			held[r.ID] = r.PID
		}
	}
	for _, h := range live {
		if held[h.worker] != h.p.Pid() {
			t.Fatalf("after the failover worker ID %d of %s (pid %d) is held by pid %d: the new primary lost its held key; the fleet: %+v",
				h.worker, h.name, h.p.Pid(), held[h.worker], rows)
		}
	}

	for i := range newcomers {
		all = append(all, start(fmt.Sprintf("newcomer %d", i+1), perProcess))
	}
	time.Sleep(steady)
	close(stop)
	wg.Wait()

	var lists [][]int64
	var procs []*fleettest.Process
	for _, r := range all {
		if r.err != nil || len(r.p.IDs) != r.n {
			t.Errorf("%s (pid %d) printed %d of %d IDs and ended with %v: a take failed: %s",
				r.name, r.p.Pid(), len(r.p.IDs), r.n, r.err, r.p.Stderr())
		}
		lists = append(lists, r.p.IDs)
		procs = append(procs, r.p)
	}
	for _, h := range live {
		if !strings.Contains(h.p.Stderr(), "renewing a lease failed") {
			t.Errorf("%s (pid %d) logged no failed renewal, though none was acknowledged for %v: %s",
				h.name, h.p.Pid(), outage.Round(time.Millisecond), h.p.Stderr())
		}
	}
	if early.err != nil || len(early.ids) == 0 {
		t.Errorf("the generator started after the promotion took %d IDs and failed: %v", len(early.ids), early.err)
	}
	if err := early.g.Close(); err != nil {
		t.Errorf("the generator started after the promotion: %v", err)
	}
	if t.Failed() {
		t.FailNow()
	}
	byWorker := fleettest.CheckHolders(t, f.Layout, procs)
	n := fleettest.CheckUnique(t, f.Layout.ParseUID, append(lists, early.ids)...)
	var liveIDs, newIDs []int64
	for _, h := range live {
		liveIDs = append(liveIDs, h.p.WorkerOf(t, f.Layout))
	}
	// The early generator's worker ID: every ID carries it, they increase,
	// and it starts above every process that held it before (the leaver's,
	// when it took that one); no process holds it after, as it held it to
	// the end.
	w := f.Layout.Parse(early.ids[0]).WorkerID
	idtest.Check(t, idtest.As(f.Layout, w), [][]int64{early.ids})
	if slices.Contains(liveIDs, w) {
		t.Fatalf("the generator started after the promotion took worker ID %d, held by a live holder: the holders hold %v", w, liveIDs)
	}
	for _, p := range byWorker[w] {
		if last, first := f.Layout.Parse(p.IDs[len(p.IDs)-1]), f.Layout.Parse(early.ids[0]); !first.Time.After(last.Time) {
			t.Fatalf("worker ID %d: the generator started after the promotion starts at %v, not after pid %d's last second %v",
				w, first.Time, p.Pid(), last.Time)
		}
	}
	newIDs = append(newIDs, w)
	for _, r := range all[len(all)-newcomers:] {
		w := r.p.WorkerOf(t, f.Layout)
		if slices.Contains(liveIDs, w) {
			t.Fatalf("%s (pid %d) took worker ID %d, held by a live holder: the holders hold %v", r.name, r.p.Pid(), w, liveIDs)
		}
		newIDs = append(newIDs, w)
	}
	t.Logf("the replica promoted %v after the kill; the old primary, restarted %v after it, its replica %v later: %v without renewals",
		promoted.Round(time.Millisecond), primaryDown, rejoined.Round(time.Millisecond), outage.Round(time.Millisecond))
	t.Logf("holders on worker IDs %v took through the failover; the leaver left worker ID %d; "+
		"the generator started after the promotion took %d, waiting %v for its lease; the newcomers %v",
		liveIDs, leaver.p.WorkerOf(t, f.Layout), newIDs[0], early.took.Round(time.Millisecond), newIDs[1:])
	t.Logf("%d processes and a generator, %d IDs, all unique", len(all), n)
}

// pacedProcess is a gen process that the test reads at a steady pace,
// which paces its takes: it writes only as fast as its stdout is read,
// give or take a pipe's worth.
type pacedProcess struct {
	name   string
	n      int   // the IDs it was asked for
	worker int64 // of its first ID, read before run started
	p      *fleettest.Process
	err    error         // Finish's: written by run before it closes done
	done   chan struct{} // closed when run has returned
}

// run reads batch IDs every pace until stop closes or stdout ends, then
// the rest at full speed, and waits for the process. It alone reads and
// waits for the process.
func (r *pacedProcess) run(stop <-chan struct{}, batch int, pace time.Duration) {
	defer close(r.done)
	for len(r.p.IDs) < r.n {
		select {
		case <-stop:
			r.err = r.p.Finish()
			return
		case <-time.After(pace):
		}
		before := len(r.p.IDs)
		if err := r.p.Read(batch); err != nil || len(r.p.IDs) < before+batch {
			break
		}
	}
	r.err = r.p.Finish()
}

// earlyGenerator is a cached generator in the test's own process, leasing
// through a failover client, started while a take cannot be acknowledged.
type earlyGenerator struct {
	up   chan struct{} // closed once New returned: g or err is set
	g    *cached.Generator
	err  error         // New's, then the first NextID's that failed
	took time.Duration // from the start until New returned
	ids  []int64       // written by run alone, read after it returned
}

// startEarly builds the generator in a goroutine, leasing from cfg's fleet
// within limit, in fleettest.SevenWorkers's layout.
func startEarly(ctx context.Context, cfg redisworker.Config, limit time.Duration) *earlyGenerator {
	e := &earlyGenerator{up: make(chan struct{})}
	go func() {
		defer close(e.up)
		start := time.Now()
		l, err := redisworker.NewLeased(cfg)
		if err != nil {
			e.err = err
			return
		}
		ctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		w := fleettest.SevenWorkers
		layout, err := uidgen.NewLayout(bits.Spec{TimeBits: w.TimeBits, WorkerBits: w.WorkerBits, SeqBits: w.SeqBits},
			time.Second, uidgen.DefaultLayout().Epoch())
		if err != nil {
			e.err = err
			return
		}
		e.g, e.err = cached.New(ctx, cached.Config{Leaser: l, Layout: layout})
		e.took = time.Since(start)
	}()
	return e
}

// run takes batch IDs every pace until stop closes or a take fails.
func (e *earlyGenerator) run(stop <-chan struct{}, batch int, pace time.Duration) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(pace):
		}
		for range batch {
			id, err := e.g.NextID()
			if err != nil {
				e.err = err
				return
			}
			e.ids = append(e.ids, id)
		}
	}
}
