package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/memleasetest"
)

// fakeStore is a leaseStore in memory, chosen by -fake: it lends
// leasetest's worker ID and records what the CLI asked of it.
type fakeStore struct {
	leaser  memleasetest.Leaser
	fail    error // what Leaser returns, if not nil
	chosen  bool  // -fake
	setting string

	ttl, horizon time.Duration        // what Leaser was given
	ids          uidgen.WorkerIDRange // what Leaser was given
	leasers      int                  // calls of Leaser
	released     int                  // calls of the func Leaser returned
	listed       time.Duration        // how long List's ctx had left; 0: not called
}

func newFakeStore() *fakeStore {
	now := time.Now().Unix()
	return &fakeStore{leaser: memleasetest.Leaser{ID: 7, First: now - 10, Reserved: now + 3600}}
}

func (s *fakeStore) Register(fs *flag.FlagSet) {
	fs.BoolVar(&s.chosen, "fake", false, "lease worker IDs from the fake store")
	fs.StringVar(&s.setting, "fake-setting", "", "a second flag of the fake store's, which does not choose it")
}

func (s *fakeStore) Chosen() bool { return s.chosen }

func (s *fakeStore) Flag() string { return "fake" }

func (s *fakeStore) EnvSet() []string { return nil }

func (s *fakeStore) FromEnv() {}

func (s *fakeStore) Leaser(ttl, horizon time.Duration, ids uidgen.WorkerIDRange) (uidgen.Leaser, func(), error) {
	s.leasers++
	s.ttl, s.horizon, s.ids = ttl, horizon, ids
	if s.fail != nil {
		return nil, nil, s.fail
	}
	return &s.leaser, func() { s.released++ }, nil
}

func (s *fakeStore) List(ctx context.Context, w io.Writer) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		return errors.New("List's ctx has no deadline")
	}
	s.listed = time.Until(deadline)
	_, err := fmt.Fprintf(w, "worker ID %d, from the fake store\n", s.leaser.ID)
	return err
}

// runWithStore runs the command line args with store, and returns its
// exit status and output.
func runWithStore(store leaseStore, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Main(args, &out, &errOut, store)
	return code, out.String(), errOut.String()
}

// TestStoreLeasesTheWorkerID: with the store's flag, gen takes its worker
// ID from the store's Leaser, with -lease-ttl, -lease-horizon and
// -worker-ids, gives the lease back and releases the store at exit. A
// $UIDGEN_DSN default is no -dsn: only -dsn given conflicts.
func TestStoreLeasesTheWorkerID(t *testing.T) {
	t.Setenv(dsnEnv, "root@tcp(127.0.0.1:1)/unused")
	tests := []struct {
		args []string
		ids  int // IDs printed
	}{
		{[]string{"gen", "-fake", "-n", "5", "-lease-ttl", "45s", "-lease-horizon", "20s", "-worker-ids", "512-1023"}, 5},
		{[]string{"gen", "-fake", "-n", "5", "-generator", "default", "-lease-ttl", "45s", "-lease-horizon", "20s", "-worker-ids", "512-1023"}, 5},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			store := newFakeStore()
			code, out, stderr := runWithStore(store, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if store.leasers != 1 || store.released != 1 {
				t.Errorf("Leaser called %d times, its release %d; want 1 and 1", store.leasers, store.released)
			}
			if store.ttl != 45*time.Second || store.horizon != 20*time.Second {
				t.Errorf("Leaser(%v, %v), want the flags' 45s and 20s", store.ttl, store.horizon)
			}
			if store.ids != (uidgen.WorkerIDRange{Min: 512, Max: 1023}) {
				t.Errorf("Leaser(..., %v), want the flag's 512-1023", store.ids)
			}
			lease, maxWorkerID := store.leaser.Lease()
			if lease == nil {
				t.Fatal("no worker ID was leased from the store")
			}
			if _, released := lease.Released(); !released {
				t.Error("the lease was not given back at exit")
			}
			if maxWorkerID != uidgen.DefaultLayout().Bits().MaxWorkerID() {
				t.Errorf("leased for worker IDs up to %d, want the default layout's %d", maxWorkerID, uidgen.DefaultLayout().Bits().MaxWorkerID())
			}
			ids := parseIDs(t, out)
			if len(ids) != tt.ids {
				t.Fatalf("printed %d IDs, want %d", len(ids), tt.ids)
			}
			for _, id := range ids {
				if w := uidgen.DefaultLayout().Parse(id).WorkerID; w != store.leaser.ID {
					t.Fatalf("ID %d has worker ID %d, want the store's %d", id, w, store.leaser.ID)
				}
			}
		})
	}
}

// TestStoreLists: workers with the store's flag lists the store's worker
// IDs under assignTimeout, needing no -dsn.
func TestStoreLists(t *testing.T) {
	t.Setenv(dsnEnv, "")
	store := newFakeStore()
	code, out, stderr := runWithStore(store, "workers", "-fake")
	if code != 0 || out != "worker ID 7, from the fake store\n" {
		t.Fatalf("exit %d, output %q, %s; want 0 and the store's list", code, out, stderr)
	}
	if store.listed <= 0 || store.listed > assignTimeout {
		t.Errorf("List's ctx had %v left, want at most assignTimeout %v", store.listed, assignTimeout)
	}
}

// TestStoreBadCallsExitTwo: the store's flag with a flag of the worker
// table is a usage error naming both, as is a lease flag with neither
// -lease nor the store, and the store's own usage error; the store lends
// nothing for any of them but the last.
func TestStoreBadCallsExitTwo(t *testing.T) {
	t.Setenv(dsnEnv, "")
	tests := []struct {
		args []string
		fail error
		want string
	}{
		{[]string{"gen", "-fake", "-dsn", "root@tcp(127.0.0.1:1)/test"}, nil, "-dsn and -fake both given: with -fake, the worker ID is leased from the store, and -worker, -dsn, -table, -lease and -db have no use"},
		{[]string{"gen", "-fake", "-worker", "3"}, nil, "-worker and -fake both given"},
		{[]string{"gen", "-fake", "-lease"}, nil, "-lease and -fake both given"},
		{[]string{"gen", "-fake", "-table", "W"}, nil, "-table and -fake both given"},
		{[]string{"bench", "-fake"}, nil, "-fake" + benchRefusal},
		{[]string{"serve", "-fake", "-worker", "3"}, nil, "-worker and -fake both given"},
		{[]string{"gen", "-lease-ttl", "45s", "-dsn", "root@tcp(127.0.0.1:1)/test"}, nil, "-lease-ttl needs -lease or the lease store (-fake, -fake-setting)"},
		{[]string{"gen", "-fake", "-segment", "order"}, nil, "-fake does not go with -segment"},
		{[]string{"gen", "-fake", "-worker-ids", "5"}, nil, `invalid value "5" for flag -worker-ids: uidgen: invalid config: WorkerIDs "5": want LO-HI, such as 512-1023`},
		{[]string{"gen", "-fake", "-worker-ids", "9-3"}, nil, `invalid value "9-3" for flag -worker-ids: uidgen: invalid config: WorkerIDs 9-3 is empty: want Min at most Max`},
		{[]string{"serve", "-fake", "-worker-ids", "0-10"}, nil, `invalid value "0-10" for flag -worker-ids: uidgen: invalid config: WorkerIDs 0-10 starts at 0: want Min 1 or more`},
		{[]string{"bench", "-fake", "-worker-ids", "a-b"}, nil, `invalid value "a-b" for flag -worker-ids: uidgen: invalid config: WorkerIDs "a-b": want LO-HI`},
		{[]string{"gen", "-worker-ids", "3-4", "-dsn", "root@tcp(127.0.0.1:1)/test"}, nil, "-worker-ids needs -lease or the lease store (-fake, -fake-setting)"},
		{[]string{"gen", "-worker", "3", "-worker-ids", "3-4"}, nil, "-worker and -worker-ids both given"},
		{[]string{"gen", "-dsn", "root@tcp(127.0.0.1:1)/test", "-worker-ids", "3-4"}, nil, "-worker-ids needs -lease"},
		{[]string{"workers", "-fake", "-dsn", "root@tcp(127.0.0.1:1)/test"}, nil, "-dsn and -fake both given: with -fake, workers lists the store's worker IDs, and -dsn, -table and -db have no use"},
		{[]string{"workers", "-fake", "-table", "W"}, nil, "-table and -fake both given"},
		{[]string{"gen", "-fake"}, fmt.Errorf("%w: -fake-setting: bad", ErrUsage), "uidgen gen: usage: -fake-setting: bad"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			store := newFakeStore()
			store.fail = tt.fail
			code, _, stderr := runWithStore(store, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
			if lent := store.leasers > 0 && tt.fail == nil; lent || store.listed != 0 {
				t.Errorf("the store was asked to lend (%v) or list (%v)", lent, store.listed != 0)
			}
		})
	}
}

// TestStoreErrorExitsOne: an error of the store's that is no usage error
// is a failure, exit 1.
func TestStoreErrorExitsOne(t *testing.T) {
	store := newFakeStore()
	store.fail = errors.New("fake store: unreachable")
	code, _, stderr := runWithStore(store, "gen", "-fake")
	if code != 1 || stderr != "uidgen gen: fake store: unreachable\n" {
		t.Fatalf("exit %d, stderr %q; want 1 and the store's error", code, stderr)
	}
}

// TestStoreFlagsInHelp: the commands that offer the store list its flags
// in -h, the fake store's and etcd's alike; the others do not, bench,
// which keeps no store, among them.
func TestStoreFlagsInHelp(t *testing.T) {
	offer := map[string]bool{"gen": true, "serve": true, "workers": true}
	for _, c := range commands {
		for _, tt := range []struct {
			store leaseStore
			flag  string
		}{{newFakeStore(), "  -fake\n"}, {newStores(io.Discard), "  -etcd string\n"}, {newStores(io.Discard), "  -redis string\n"}} {
			code, _, stderr := runWithStore(tt.store, c.name, "-h")
			listed := strings.Contains(stderr, tt.flag)
			if code != 0 || listed != offer[c.name] {
				t.Errorf("%s -h: exit %d, lists %q: %v", c.name, code, strings.TrimSpace(tt.flag), listed)
			}
		}
	}
}
