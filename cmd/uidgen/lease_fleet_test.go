package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/idcheck"
	"github.com/seed4d941b13/uidgen/internal/testsize"
	"github.com/seed4d941b13/uidgen/worker"
)

// The lease fleet tests run `uidgen gen -lease` as separate processes that
// start, finish, crash and pause around one worker table, and check every
// ID each of them printed: the guarantee of worker.Leased seen from outside,
// through the generator and the command.

// fleetTimeout bounds each lease fleet test: every wait on a process ends
// by then, the process killed by its PID.
const fleetTimeout = 2 * time.Minute

// fleetLayout is a layout of 63 bits for the lease fleet tests. Its 12
// sequence bits make a process of tens of thousands of IDs span several
// seconds, each of which a later holder of its worker ID must start above.
type fleetLayout struct{ timeBits, workerBits, seqBits int }

var (
	// sevenWorkers has worker IDs 1..7: more than the processes alive at
	// once, fewer than the processes that come and go.
	sevenWorkers = fleetLayout{48, 3, 12}
	// oneWorker has the single worker ID 1, so a newcomer must take the ID
	// a crashed or paused holder had.
	oneWorker = fleetLayout{50, 1, 12}
)

// args returns gen's flags for the layout.
func (l fleetLayout) args() []string {
	return []string{"-time-bits", strconv.Itoa(l.timeBits), "-worker-bits", strconv.Itoa(l.workerBits),
		"-seq-bits", strconv.Itoa(l.seqBits)}
}

// layout returns the layout to check the printed IDs against.
func (l fleetLayout) layout(t *testing.T) uidgen.Layout {
	t.Helper()
	if sum := l.timeBits + l.workerBits + l.seqBits; sum != 63 {
		t.Fatalf("layout %+v has %d bits, want 63", l, sum)
	}
	layout, err := uidgen.NewLayout(l.timeBits, l.workerBits, l.seqBits, uidgen.DefaultEpoch)
	if err != nil {
		t.Fatal(err)
	}
	return layout
}

// fleet is one lease fleet test's worker table, of its own, its layout,
// and its deadline.
type fleet struct {
	ctx        context.Context
	db         *sql.DB
	dsn, table string
	bits       fleetLayout
	layout     uidgen.Layout
}

func newFleet(t *testing.T, s dbtest.Server, bits fleetLayout) *fleet {
	t.Helper()
	db := s.Open(t)
	ctx, cancel := context.WithTimeout(t.Context(), fleetTimeout)
	t.Cleanup(cancel)
	return &fleet{ctx: ctx, db: db, dsn: s.DSN, table: dbtest.Table(t, db, "WORKER_NODE_"), bits: bits, layout: bits.layout(t)}
}

// args returns the arguments of gen -lease for n IDs on the fleet's table
// and layout, followed by extra.
func (f *fleet) args(n int, extra ...string) []string {
	args := append([]string{"gen", "-lease", "-dsn", f.dsn, "-table", f.table, "-n", strconv.Itoa(n)}, f.bits.args()...)
	return append(args, extra...)
}

// start starts gen -lease for n IDs with a lease TTL of leaseTTL, then
// extra; the test's end ends it.
func (f *fleet) start(t *testing.T, n int, extra ...string) *genProcess {
	t.Helper()
	p, err := startGen(f.ctx, f.args(n, append([]string{"-lease-ttl", leaseTTL.String(), "-lease-horizon", leaseHorizon.String()}, extra...)...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.end)
	return p
}

// genProcess is the test binary re-executed as the uidgen command. Its IDs
// are read from its stdout only as the test asks for them: a test that
// stops reading holds the process mid-run, blocked on a full pipe, with its
// worker ID leased and its reservation renewed.
type genProcess struct {
	cmd    *exec.Cmd
	out    *bufio.Scanner
	stderr bytes.Buffer
	ids    []int64
	waited bool
	err    error // the exit error, once waited
}

// startGen starts uidgen with args. ctx's end kills it.
func startGen(ctx context.Context, args []string) (*genProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p := &genProcess{cmd: exec.CommandContext(ctx, exe, "-test.run=^$")}
	p.cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\n"))
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewScanner(stdout)
	p.out.Split(wholeLines)
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	return p, nil
}

// wholeLines splits stdout into lines that end in a newline: a process
// killed mid-write leaves a fragment of an ID, which it never printed.
func wholeLines(data []byte, atEOF bool) (advance int, line []byte, err error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF {
		return len(data), nil, nil
	}
	return 0, nil, nil
}

// read reads n more IDs, fewer where stdout ends first (io.EOF is not an
// error: finish says how the process ended).
func (p *genProcess) read(n int) error {
	for i := 0; i < n && p.out.Scan(); i++ {
		id, err := strconv.ParseInt(p.out.Text(), 10, 64)
		if err != nil {
			return fmt.Errorf("pid %d, line %d: %w", p.cmd.Process.Pid, len(p.ids)+1, err)
		}
		p.ids = append(p.ids, id)
	}
	return p.out.Err()
}

// finish reads the rest of stdout and waits for the process; it returns
// the exit error, nil for status 0.
func (p *genProcess) finish() error {
	err := p.read(int(^uint(0) >> 1))
	p.waited, p.err = true, p.cmd.Wait()
	if err != nil {
		return err
	}
	return p.err
}

// signal sends sig to the process, by its PID.
func (p *genProcess) signal(sig syscall.Signal) error {
	return p.cmd.Process.Signal(sig)
}

// end kills the process if it was not waited for, and waits.
func (p *genProcess) end() {
	if p.waited {
		return
	}
	p.signal(syscall.SIGCONT) // a stopped process dies of SIGKILL too, but say so
	p.cmd.Process.Kill()
	p.finish()
}

// workerOf returns the worker ID of the process's IDs, checking them all:
// each carries it, and they increase.
func (p *genProcess) workerOf(t *testing.T, layout uidgen.Layout) int64 {
	t.Helper()
	if len(p.ids) == 0 {
		t.Fatalf("pid %d printed no ID: %v: %s", p.cmd.Process.Pid, p.err, &p.stderr)
	}
	w := layout.Parse(p.ids[0]).WorkerID
	idcheck.Check(t, idcheck.As(layout, w), [][]int64{p.ids})
	return w
}

// checkAfter fails t unless every ID of later carries a second above every
// ID of earlier, as two holders of one worker ID must, one after the other.
func checkAfter(t *testing.T, layout uidgen.Layout, earlier, later *genProcess) {
	t.Helper()
	last, first := layout.Parse(earlier.ids[len(earlier.ids)-1]), layout.Parse(later.ids[0])
	if !first.Time.After(last.Time) {
		t.Fatalf("worker ID %d: the later holder (pid %d) starts at %v, not after the earlier one's (pid %d) last second %v",
			first.WorkerID, later.cmd.Process.Pid, first.Time, earlier.cmd.Process.Pid, last.Time)
	}
}

// TestLeaseReuse runs 60 lifetimes of gen -lease, up to 6 at once, on a
// layout of 7 worker IDs: every process leases an ID in 1..7, IDs come
// back, and a later holder of an ID uses only seconds above its earlier
// holders', so no ID is printed twice.
func TestLeaseReuse(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		const lifetimes, alive = 60, 6
		perProcess := testsize.Pick(50_000, 20_000)
		f := newFleet(t, s, sevenWorkers)
		layout := f.layout
		args := f.args(perProcess)

		procs := make([]*genProcess, lifetimes)
		errs := make([]error, lifetimes)
		slots := make(chan struct{}, alive)
		var running, peak atomic.Int64
		var wg sync.WaitGroup
		for i := range procs {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				p, err := startGen(f.ctx, args)
				if err != nil {
					errs[i] = err
					return
				}
				defer p.end()
				n := running.Add(1)
				for m := peak.Load(); n > m && !peak.CompareAndSwap(m, n); m = peak.Load() {
				}
				errs[i] = p.finish()
				running.Add(-1)
				procs[i] = p
			})
		}
		wg.Wait()

		byWorker := make(map[int64][]*genProcess)
		var all []int64
		for i, p := range procs {
			if errs[i] != nil {
				stderr := ""
				if p != nil {
					stderr = p.stderr.String()
				}
				t.Fatalf("lifetime %d: %v: %s", i, errs[i], stderr)
			}
			if len(p.ids) != perProcess {
				t.Fatalf("lifetime %d printed %d IDs, want %d", i, len(p.ids), perProcess)
			}
			w := p.workerOf(t, layout)
			if w < 1 || w > layout.Bits().MaxWorkerID() {
				t.Fatalf("lifetime %d leased worker ID %d, want 1 to %d", i, w, layout.Bits().MaxWorkerID())
			}
			byWorker[w] = append(byWorker[w], p)
			all = append(all, p.ids...)
		}
		// Processes that overlapped held different IDs; with none overlapping
		// every one would have leased ID 1, the lowest free.
		if len(byWorker) < 2 {
			t.Fatalf("all %d lifetimes leased one worker ID (peak %d alive): the processes never overlapped", lifetimes, peak.Load())
		}
		for _, holders := range byWorker {
			slices.SortFunc(holders, func(a, b *genProcess) int { return cmp.Compare(a.ids[0], b.ids[0]) })
			for i := 1; i < len(holders); i++ {
				checkAfter(t, layout, holders[i-1], holders[i])
			}
		}
		checkUnique(t, layout.ParseUID, all)
		t.Logf("%d lifetimes, up to %d alive at once, %d worker IDs, %d IDs, all unique", lifetimes, peak.Load(), len(byWorker), len(all))
	})
}

// leaseTTL is the TTL of the crash and pause tests: short, so that the
// newcomer waits little, and long enough for a loaded machine, -race
// included, to renew every third of it. leaseHorizon is as short: these
// tests are about holders that churn, and a holder that lost its lease
// goes on to the end of its reservation, which the default horizon puts
// ten minutes ahead.
const (
	leaseTTL     = 2 * time.Second
	leaseHorizon = 2 * time.Second
)

// TestLeaseCrash kills the holder of the only worker ID mid-run, so that
// it never releases its lease: the ID comes back to a new process once the
// lease's TTL passes, and the new process prints no ID the dead one did.
func TestLeaseCrash(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		f := newFleet(t, s, oneWorker)
		layout := f.layout
		dead := f.start(t, 10_000_000)
		if err := dead.read(10_000); err != nil || len(dead.ids) < 10_000 {
			t.Fatalf("the holder printed %d IDs, %v: %s", len(dead.ids), err, &dead.stderr)
		}
		if err := dead.signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		var exit *exec.ExitError
		if err := dead.finish(); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("the holder ended with %v, want killed: %s", err, &dead.stderr)
		}
		rows, err := worker.List(f.ctx, worker.Config{DB: f.db, Table: f.table})
		if err != nil || len(rows) != 1 || !rows[0].Held {
			t.Fatalf("after the kill the worker table holds %+v, %v; want worker ID 1 still held: the dead never release", rows, err)
		}

		next := f.start(t, 100_000)
		if err := next.finish(); err != nil || len(next.ids) != 100_000 {
			t.Fatalf("the next process: %d IDs, %v: %s", len(next.ids), err, &next.stderr)
		}
		back := time.Since(killed)
		if back >= worker.DefaultLeaseTTL {
			t.Fatalf("the ID came back %v after the kill, want within -lease-ttl %v", back, leaseTTL)
		}
		if w := dead.workerOf(t, layout); w != 1 || next.workerOf(t, layout) != 1 {
			t.Fatalf("worker IDs %d and %d, want 1 and 1", w, next.workerOf(t, layout))
		}
		checkAfter(t, layout, dead, next)
		checkUnique(t, layout.ParseUID, dead.ids, next.ids)
		t.Logf("the killed holder printed %d IDs; worker ID 1 came back %v after the kill, to a process that printed %d",
			len(dead.ids), back.Round(time.Millisecond), len(next.ids))
	})
}

// TestLeasePause stops the holder of the only worker ID (SIGSTOP) past its
// lease's TTL, lets a new process take the ID, and lets the first go on
// (SIGCONT): the first either finishes within the seconds it had reserved
// or fails with uidgen.ErrLeaseLost, and nothing the two print repeats.
// The cached generator borrows seconds, and reserves them, at the pace it
// fills its ring; the default one uses the clock's, so after the pause its
// next second is past what it reserved.
//
// The pause catches the holder blocked on its stdout, the test having
// stopped reading, once its reservation is past what its ring and the pipe
// can hold. A pause that caught a take of the cached generator waiting for
// a renewal would fail that take on SIGCONT, before the lease is found
// lost: the take's wait counts the stopped time against its limit, so it
// fails wrapping ringbuffer.ErrEmpty, saying the reservation runs out.
func TestLeasePause(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		for _, tt := range []struct {
			generator string
			n, before int // IDs the paused process makes, and prints before the pause
		}{
			{"cached", 2_000_000, 10_000},
			{"default", 10_000_000, 1_000}, // more than it makes before the test's timeout
		} {
			t.Run(tt.generator, func(t *testing.T) { testLeasePause(t, s, tt.generator, tt.n, tt.before) })
		}
	})
}

func testLeasePause(t *testing.T, s dbtest.Server, generator string, pausedN, before int) {
	const nextN = 200_000
	f := newFleet(t, s, oneWorker)
	layout := f.layout
	paused := f.start(t, pausedN, "-generator", generator)
	if err := paused.read(before); err != nil || len(paused.ids) < before {
		t.Fatalf("the holder printed %d IDs, %v: %s", len(paused.ids), err, &paused.stderr)
	}
	if generator == "cached" {
		// The ring holds 8 seconds, the pipe about one.
		f.waitReserved(t, layout.Parse(paused.ids[len(paused.ids)-1]).Time.Unix()+16)
	}
	if err := paused.signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	next := f.start(t, nextN)
	if err := next.read(1); err != nil || len(next.ids) != 1 {
		next.finish()
		t.Fatalf("the next process printed no ID: %v: %s", next.err, &next.stderr)
	}
	took := time.Since(stopped)
	if err := paused.signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}

	var pausedErr, nextErr error
	var wg sync.WaitGroup
	wg.Go(func() { pausedErr = paused.finish() })
	wg.Go(func() { nextErr = next.finish() })
	wg.Wait()
	if nextErr != nil || len(next.ids) != nextN {
		t.Fatalf("the next process: %d IDs, %v: %s", len(next.ids), nextErr, &next.stderr)
	}
	var observed string
	switch {
	case pausedErr == nil && len(paused.ids) == pausedN:
		observed = "finished within its reserved seconds"
	case pausedErr != nil && (strings.Contains(paused.stderr.String(), uidgen.ErrLeaseLost.Error()) ||
		strings.Contains(paused.stderr.String(), "renewing it failed")):
		// A loaded machine may time the resumed holder's first renewal
		// out before the renewal finds the lease lost: either way it
		// stops at its reservation, which is what keeps the IDs apart.
		observed = "failed: " + strings.TrimSpace(paused.stderr.String())
	default:
		t.Fatalf("the resumed holder printed %d of %d IDs and ended with %v: %s; want all of them, or a failure at its reservation",
			len(paused.ids), pausedN, pausedErr, &paused.stderr)
	}
	if w := paused.workerOf(t, layout); w != 1 || next.workerOf(t, layout) != 1 {
		t.Fatalf("worker IDs %d and %d, want 1 and 1", w, next.workerOf(t, layout))
	}
	checkAfter(t, layout, paused, next)
	checkUnique(t, layout.ParseUID, paused.ids, next.ids)
	t.Logf("stopped %v until the next process took worker ID 1; it printed %d IDs; the resumed holder printed %d in all and %s",
		took.Round(time.Millisecond), len(next.ids), len(paused.ids), observed)
}

// waitReserved waits, polling the worker table, until the only row's
// reservation reaches second sec.
func (f *fleet) waitReserved(t *testing.T, sec int64) {
	t.Helper()
	for {
		rows, err := worker.List(f.ctx, worker.Config{DB: f.db, Table: f.table})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 1 && rows[0].ReservedUntil >= sec {
			return
		}
		select {
		case <-f.ctx.Done():
			t.Fatalf("the reservation never reached second %d: %+v", sec, rows)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
