package etcdworker

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/etcdtest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// testContext ends with the test or after a minute.
var testContext = leasetest.Context

// fleet is a test's own fleet: a prefix of its own on a one-member
// cluster.
type fleet struct {
	c      *clientv3.Client
	prefix string
}

func newFleet(t *testing.T) fleet {
	t.Helper()
	cluster := etcdtest.Start(t, 1)
	return fleet{c: cluster.Client(t), prefix: "/test/" + t.Name() + "/"}
}

// leased returns a Leased of cfg on the fleet.
func (f fleet) leased(t testing.TB, cfg Config) *Leased {
	t.Helper()
	cfg.Client, cfg.Prefix = f.c, f.prefix
	return leasetest.Made[*Leased](t)(NewLeased(cfg))
}

// reserved returns the value of reserved/id, or -1 where the key is absent.
func (f fleet) reserved(t testing.TB, id int64) int64 {
	t.Helper()
	resp, err := f.c.Get(testContext(t), reservedKey(f.prefix, id))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return -1
	}
	v, err := strconv.ParseInt(string(resp.Kvs[0].Value), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// put sets key to value, as another holder's transaction would.
func (f fleet) put(t testing.TB, key, value string, opts ...clientv3.OpOption) {
	t.Helper()
	if _, err := f.c.Put(testContext(t), key, value, opts...); err != nil {
		t.Fatal(err)
	}
}

// mustLease leases an ID up to maxID, released with lastUsed First()-1 when
// the test ends unless the test released it.
func mustLease(t testing.TB, l *Leased, maxID int64) *lease {
	t.Helper()
	return leasetest.Must[*lease](t, testContext(t), l, maxID)
}

func TestConfigErrors(t *testing.T) {
	c := etcdtest.Client(t, "http://127.0.0.1:1") // never dialled: the checks send nothing
	for _, tt := range []struct {
		cfg  Config
		want error
		text string
	}{
		{Config{}, uidgen.ErrConfig, "Client is nil"},
		{Config{Client: c, Prefix: "/fleet\n"}, uidgen.ErrConfig, `Prefix "/fleet\n" holds '\n'`},
		{Config{Client: c, LeaseTTL: time.Second}, uidgen.ErrConfig, "LeaseTTL 1s: want 2s to 1h"},
		{Config{Client: c, LeaseTTL: 2 * time.Hour}, uidgen.ErrConfig, "LeaseTTL 2h: want 2s to 1h"},
		{Config{Client: c, LeaseHorizon: -time.Second}, uidgen.ErrConfig, "LeaseHorizon -1s: want 1s to 24h"},
	} {
		_, err := NewLeased(tt.cfg)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "etcdworker: ") {
			t.Errorf("NewLeased(%+v): %v, want %q naming %q", tt.cfg, err, tt.want, tt.text)
		}
	}
	if _, err := List(t.Context(), Config{}); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), "Client is nil") {
		t.Errorf("List without a client: %v, want %q saying Client is nil", err, uidgen.ErrConfig)
	}
	l, err := NewLeased(Config{Client: c, Prefix: "/a"})
	if err != nil {
		t.Fatal(err)
	}
	if l.prefix != "/a/" {
		t.Errorf("prefix %q, want %q: a fleet's keys must not run into another fleet's", l.prefix, "/a/")
	}
	if _, err := l.LeaseWorkerID(t.Context(), 0); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), "LeaseWorkerID given a largest worker ID of 0: want 1 or more") {
		t.Errorf("LeaseWorkerID(0): %v, want %q naming the largest worker ID 0", err, uidgen.ErrConfig)
	}
}

// TestLeaseConformance runs leasetest's suite on one etcd member, each
// fleet under a prefix of its own.
func TestLeaseConformance(t *testing.T) {
	leasetest.Run(t, etcdStore{etcdtest.Start(t, 1).Client(t)})
}

// etcdStore is the leasetest.Store of an etcd cluster.
type etcdStore struct{ c *clientv3.Client }

func (s etcdStore) Fleet(t *testing.T) leasetest.Fleet {
	return fleet{c: s.c, prefix: "/test/" + t.Name() + "/"}
}

func (f fleet) Leased(_ testing.TB, o leasetest.Options) (uidgen.Leaser, error) {
	l, err := NewLeased(Config{Client: f.c, Prefix: f.prefix, LeaseTTL: o.TTL, LeaseHorizon: o.Horizon, WorkerIDs: o.WorkerIDs})
	return leasetest.Tune(l, err, func(l *Leased) { l.now, l.poll, l.timing.Every = o.Now, o.Poll, o.Every })
}

func (f fleet) Op() string                            { return "etcdworker: lease a worker ID under " + f.prefix }
func (f fleet) Reserved(t testing.TB, id int64) int64 { return f.reserved(t, id) }
func (f fleet) Reserve(t testing.TB, id, sec int64) {
	f.put(t, reservedKey(f.prefix, id), strconv.FormatInt(sec, 10))
}
func (fleet) Store(_ testing.TB, l uidgen.Lease) leasing.Store { return l.(*lease).store }
func (f fleet) List(ctx context.Context) ([]uidgen.LeaseRow, error) {
	return List(ctx, Config{Client: f.c, Prefix: f.prefix})
}

// Expire revokes the etcd lease that held/id is under, as its TTL passing
// without a renewal would: etcd deletes held/id.
func (f fleet) Expire(t testing.TB, id int64) {
	t.Helper()
	resp, err := f.c.Get(testContext(t), heldKey(f.prefix, id))
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("held/%d: %v, %v", id, resp, err)
	}
	if _, err := f.c.Revoke(testContext(t), clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		t.Fatal(err)
	}
}

// TestKeys: a lease's keys read as docs/etcd.md's "The keys" shows: held/ID names
// the holder, reserved/ID holds its reservation.
func TestKeys(t *testing.T) {
	f := newFleet(t)
	s := mustLease(t, f.leased(t, Config{}), 7)
	resp, err := f.c.Get(testContext(t), heldKey(f.prefix, 1))
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("held/1: %v, %v", resp, err)
	}
	var h holder
	if err := json.Unmarshal(resp.Kvs[0].Value, &h); err != nil || h.Host == "" || h.PID == 0 || h.Since.IsZero() {
		t.Errorf("held/1 holds %s (%v), want the holder's host, pid and since", resp.Kvs[0].Value, err)
	}
	if got := f.reserved(t, 1); got != s.Reserved() {
		t.Errorf("reserved/1 holds %d, want the lease's Reserved() %d", got, s.Reserved())
	}
}

// TestLeaseLostAfterKeepAlive: held/ID deleted and taken over between a
// renewal's keep-alive, which still succeeds, and its transaction: only
// the transaction's comparison of held/ID's create revision finds the
// lease lost, and it writes nothing.
func TestLeaseLostAfterKeepAlive(t *testing.T) {
	f := newFleet(t)
	l := f.leased(t, Config{})
	a := mustLease(t, l, 1)
	if _, err := f.c.Delete(testContext(t), a.store.held); err != nil {
		t.Fatal(err)
	}
	b := mustLease(t, l, 1)
	if err := a.store.Extend(testContext(t), b.Reserved()+1000); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("the old holder's Extend: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if got := f.reserved(t, 1); got != b.Reserved() {
		t.Errorf("reserved/1 holds %d after the old holder's Extend, want the new holder's %d", got, b.Reserved())
	}
}

// TestListStrayKey: a key under the prefix that this package did not
// write fails List, naming the key.
func TestListStrayKey(t *testing.T) {
	f := newFleet(t)
	f.put(t, f.prefix+"held/x", "{}")
	if _, err := List(testContext(t), Config{Client: f.c, Prefix: f.prefix}); !errors.Is(err, uidgen.ErrBadKey) || !strings.Contains(err.Error(), "held/x") {
		t.Errorf("List with a stray key: %v, want %q naming it", err, uidgen.ErrBadKey)
	}
}

// TestUnreachable: a cluster that does not answer fails LeaseWorkerID when
// its context ends, naming the endpoints.
func TestUnreachable(t *testing.T) {
	l, err := NewLeased(Config{Client: etcdtest.Client(t, "http://127.0.0.1:1")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err = l.LeaseWorkerID(ctx, 7)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer from the etcd cluster at http://127.0.0.1:1") {
		t.Errorf("LeaseWorkerID from a cluster that does not answer: %v, want %q naming the endpoint", err, context.DeadlineExceeded)
	}
}
