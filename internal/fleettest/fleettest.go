// Package fleettest runs the uidgen command as a fleet of separate
// processes that start, finish, crash and pause around one store of worker
// ID leases, and checks every ID each of them printed: the guarantee of a
// uidgen.Leaser seen from outside, through the generator and the command.
// The scenarios (Reuse, Crash, Pause) take the store as a Store, so the SQL
// table of package worker and the etcd fleet of etcdworker are held to the
// same tests from one body.
//
// The processes are the test binary re-executed: a package's TestMain calls
// Main with the command's entry point, and Command and Start run the binary
// as that command with the given arguments.
package fleettest

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
)

// childArgsEnv, when set, makes the test binary act as the command with
// these newline-separated arguments.
const childArgsEnv = "UIDGEN_TEST_CHILD_ARGS"

// Main is a TestMain that runs the tests, or, in a process that Command
// started, run with the process's arguments, and exits with the status
// either returns.
func Main(m *testing.M, run func(args []string) int) {
	if args, ok := os.LookupEnv(childArgsEnv); ok {
		os.Exit(run(strings.Split(args, "\n")))
	}
	os.Exit(m.Run())
}

// Command returns the test binary set up to run, under ctx, as the command
// of the package's Main with args.
func Command(ctx context.Context, args ...string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\n"))
	return cmd, nil
}

// Store is where a fleet test's processes lease worker IDs from.
type Store interface {
	// Args returns gen's flags that lease from this store's fleet, e.g.
	// -lease -dsn D -table T, or -etcd E -etcd-prefix P.
	Args() []string

	// One reports, for a fleet of the OneWorker layout, whether worker ID 1
	// is held and the last second reserved for it. It fails where the fleet
	// has another worker ID, or none.
	One(ctx context.Context) (held bool, reserved int64, err error)
}

// Quieter is a Store whose holders take a lock of the store itself while
// they write to it (a SQLite file's write lock), which a holder stopped
// while writing keeps until it runs again: then no other process can lease
// at all, whatever the TTL. Quiet takes that lock, so that a holder stopped
// meanwhile is stopped between writes, and returns the func that lets it
// go. Pause stops its holder so: what it tests is a holder stopped past its
// TTL, which a lease survives; a file locked by a stopped process is an
// outage of the store (docs/leases.md).
type Quieter interface {
	Quiet(t testing.TB) (release func())
}

// NewStore returns a store for t alone: a table, or a key prefix, that no
// other test or subtest leases from. Each fleet a scenario runs has one of
// its own, so no fleet starts above the reservations another left.
type NewStore func(t *testing.T) Store

// Timeout bounds each fleet test: every wait on a process ends by then,
// the process killed by its PID.
const Timeout = 2 * time.Minute

// LeaseTTL is the TTL of the tests whose holders churn: short, so that a
// newcomer waits little, and long enough for a loaded machine, -race
// included, to renew every third of it; etcd grants no shorter one.
// LeaseHorizon is as short: a holder that lost its lease goes on to the
// end of its reservation, which the default horizon puts ten minutes
// ahead.
const (
	LeaseTTL     = 2 * time.Second
	LeaseHorizon = 2 * time.Second
)

// LeaseFlags returns gen's flags for a lease TTL of ttl and a horizon of
// horizon.
func LeaseFlags(ttl, horizon time.Duration) []string {
	return []string{"-lease-ttl", ttl.String(), "-lease-horizon", horizon.String()}
}

// Layout is a layout of 63 bits for fleet tests. Its 12 sequence bits make
// a process of tens of thousands of IDs span several seconds, each of which
// a later holder of its worker ID must start above.
type Layout struct{ TimeBits, WorkerBits, SeqBits int }

var (
	// SevenWorkers has worker IDs 1..7: more than the processes alive at
	// once, fewer than the processes that come and go.
	SevenWorkers = Layout{48, 3, 12}
	// OneWorker has the single worker ID 1, so a newcomer must take the ID
	// a crashed or paused holder had.
	OneWorker = Layout{50, 1, 12}
)

// args returns gen's flags for the layout.
func (l Layout) args() []string {
	return []string{"-time-bits", strconv.Itoa(l.TimeBits), "-worker-bits", strconv.Itoa(l.WorkerBits),
		"-seq-bits", strconv.Itoa(l.SeqBits)}
}

// uid returns the layout to check the printed IDs against.
func (l Layout) uid(t testing.TB) uidgen.Layout {
	t.Helper()
	if sum := l.TimeBits + l.WorkerBits + l.SeqBits; sum != 63 {
		t.Fatalf("layout %+v has %d bits, want 63", l, sum)
	}
	s := bits.Spec{TimeBits: l.TimeBits, WorkerBits: l.WorkerBits, SeqBits: l.SeqBits}
	layout, err := uidgen.NewLayout(s, time.Second, uidgen.DefaultLayout().Epoch())
	if err != nil {
		t.Fatal(err)
	}
	return layout
}

// Fleet is one fleet test's store, of the test's own, its layout, and its
// deadline.
type Fleet struct {
	Store  Store
	Layout uidgen.Layout // of the IDs the fleet's processes print

	bits Layout
	ctx  context.Context // ends Timeout after New, or with the test
}

// New returns a fleet of processes leasing from s with layout l. Its
// processes are killed Timeout after New, or when t ends.
func New(t *testing.T, s Store, l Layout) *Fleet {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), Timeout)
	t.Cleanup(cancel)
	return &Fleet{Store: s, Layout: l.uid(t), bits: l, ctx: ctx}
}

// Context returns the fleet's deadline.
func (f *Fleet) Context() context.Context { return f.ctx }

// Args returns the arguments of gen for n IDs leased from the fleet's
// store, in its layout, followed by extra.
func (f *Fleet) Args(n int, extra ...string) []string {
	args := slices.Concat([]string{"gen"}, f.Store.Args(), []string{"-n", strconv.Itoa(n)}, f.bits.args())
	return append(args, extra...)
}

// Start starts the command with args; the fleet's deadline kills it. It
// may be called from any goroutine.
func (f *Fleet) Start(args []string) (*Process, error) { return Start(f.ctx, args...) }

// Gen starts gen for n IDs with a lease of LeaseTTL and LeaseHorizon, then
// extra; it fails t if the process does not start, and t's end ends it.
func (f *Fleet) Gen(t *testing.T, n int, extra ...string) *Process {
	t.Helper()
	p, err := f.Start(f.Args(n, append(LeaseFlags(LeaseTTL, LeaseHorizon), extra...)...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.End)
	return p
}

// CheckUnique fails t if a number appears twice in lists, naming it with
// describe, and returns how many numbers lists hold.
func CheckUnique(t testing.TB, describe func(int64) string, lists ...[]int64) int {
	t.Helper()
	all := slices.Sorted(slices.Values(slices.Concat(lists...)))
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("%s printed twice", describe(all[i]))
		}
	}
	return len(all)
}

// CheckAfter fails t unless every ID of later carries a second above every
// ID of earlier, as two holders of one worker ID must, one after the
// other. Both must have printed an ID.
func CheckAfter(t testing.TB, layout uidgen.Layout, earlier, later *Process) {
	t.Helper()
	last, first := layout.Parse(earlier.IDs[len(earlier.IDs)-1]), layout.Parse(later.IDs[0])
	if !first.Time.After(last.Time) {
		t.Fatalf("worker ID %d: the later holder (pid %d) starts at %v, not after the earlier one's (pid %d) last second %v",
			first.WorkerID, later.Pid(), first.Time, earlier.Pid(), last.Time)
	}
}
