package redisworker

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
	"github.com/seed4d941b13/uidgen/internal/redistest"
)

// testContext ends with the test or after a minute.
var testContext = leasetest.Context

// fleet is a test's own fleet: the server that holds its keys, a client
// of the deployment, and a prefix.
type fleet struct {
	s      *redistest.Server
	c      redis.UniversalClient
	prefix string // tagged, as NewLeased keeps it
}

// newFleet starts the fleet's server with the config lines given.
func newFleet(t *testing.T, config ...string) fleet {
	t.Helper()
	s := redistest.Start(t, config...)
	return fleet{s: s, c: s.Client(t), prefix: "{test}:"}
}

// leased returns a Leased of cfg on the fleet, through the fleet's client
// unless cfg names one.
func (f fleet) leased(t testing.TB, cfg Config) *Leased {
	t.Helper()
	cfg.Client, cfg.Prefix = cmp.Or(cfg.Client, f.c), f.prefix
	return leasetest.Made[*Leased](t)(NewLeased(cfg))
}

// reserved returns the value of reserved:id, or -1 where the key is absent.
func (f fleet) reserved(t testing.TB, id int64) int64 {
	t.Helper()
	v, err := f.c.Get(testContext(t), reservedKey(f.prefix, id)).Result()
	if errors.Is(err, redis.Nil) {
		return -1
	}
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// held returns the value of held:id, "" where the key is absent.
func (f fleet) held(t testing.TB, id int64) string {
	t.Helper()
	v, err := f.c.Get(testContext(t), heldKey(f.prefix, id)).Result()
	if errors.Is(err, redis.Nil) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// reserve leaves ID id free and reserved to second sec, as an earlier
// holder's release would.
func (f fleet) reserve(t testing.TB, id, sec int64) {
	t.Helper()
	ctx := testContext(t)
	if err := f.c.Set(ctx, reservedKey(f.prefix, id), sec, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := f.c.ZAdd(ctx, idsKey(f.prefix), redis.Z{Score: float64(id), Member: id}).Err(); err != nil {
		t.Fatal(err)
	}
}

// expire makes held:id expire now, as its TTL running out without a
// renewal would, and waits until the server has deleted it.
func (f fleet) expire(t testing.TB, id int64) {
	t.Helper()
	ctx := testContext(t)
	if err := f.c.PExpire(ctx, heldKey(f.prefix, id), time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	for {
		n, err := f.c.Exists(ctx, heldKey(f.prefix, id)).Result()
		if err != nil {
			t.Fatalf("held:%d did not expire: %v", id, err)
		}
		if n == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// storeOf returns the keyStore of the lease s holds now, which acts as s's
// renewals and release do: its value is what held:ID holds.
func (f fleet) storeOf(t testing.TB, l *Leased, s *lease) *keyStore {
	t.Helper()
	id := s.WorkerID()
	value := f.held(t, id)
	if value == "" {
		t.Fatalf("held:%d is absent, want the lease's", id)
	}
	return &keyStore{l: l, id: id, held: heldKey(f.prefix, id), reserved: reservedKey(f.prefix, id), value: value}
}

// mustLease leases an ID up to maxID, released with lastUsed First()-1 when
// the test ends unless the test released it.
func mustLease(t testing.TB, l *Leased, maxID int64) *lease {
	t.Helper()
	return leasetest.Must[*lease](t, testContext(t), l, maxID)
}

// renewNow makes s's renewer renew once and fails t if it did not.
func renewNow(t testing.TB, s *lease) {
	t.Helper()
	if err := s.RenewNow(testContext(t)); err != nil {
		t.Fatalf("renewal: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	// Never dialled: the checks send nothing.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer ring.Close()
	for _, tt := range []struct {
		name string
		cfg  Config
		text string // the field, the value and the limit
		only bool   // only NewLeased reads the field
	}{
		{"nil client", Config{}, "Client is nil", false},
		{"non-ASCII", Config{Client: c, Prefix: "{bestellungen}:ä"}, `Prefix "{bestellungen}:ä" holds 'ä'`, false},
		{"control character", Config{Client: c, Prefix: "{orders}\n"}, `Prefix "{orders}\n" holds '\n'`, false},
		{"two hash tags", Config{Client: c, Prefix: "{eu}{orders}:"}, `Prefix "{eu}{orders}:": want one hash tag`, false},
		{"empty hash tag", Config{Client: c, Prefix: "{}:"}, `Prefix "{}:": want one hash tag`, false},
		{"open brace alone", Config{Client: c, Prefix: "{orders:"}, `Prefix "{orders:": want one hash tag`, false},
		{"close brace alone", Config{Client: c, Prefix: "orders}:"}, `Prefix "orders}:": want one hash tag`, false},
		{"braces reversed", Config{Client: c, Prefix: "}orders{:"}, `Prefix "}orders{:": want one hash tag`, false},
		{"TTL too short", Config{Client: c, LeaseTTL: time.Millisecond}, "LeaseTTL 1ms: want 1s to 1h", true},
		{"TTL too long", Config{Client: c, LeaseTTL: 2 * time.Hour}, "LeaseTTL 2h: want 1s to 1h", true},
		{"TTL too long for its ReplicaTimeout", Config{Client: c, LeaseTTL: 2 * time.Hour, Replicas: 1, ReplicaTimeout: 50 * time.Minute},
			"LeaseTTL 2h: want 1s to 1h", true},
		{"negative TTL", Config{Client: c, LeaseTTL: -time.Second}, "LeaseTTL -1s: want 1s to 1h", true},
		{"horizon too short", Config{Client: c, LeaseHorizon: time.Millisecond}, "LeaseHorizon 1ms: want 1s to 24h", true},
		{"horizon too long", Config{Client: c, LeaseHorizon: 25 * time.Hour}, "LeaseHorizon 25h: want 1s to 24h", true},
		{"negative replicas", Config{Client: c, Replicas: -1}, "Replicas -1: want 0 or more", false},
		{"replicas on a ring", Config{Client: ring, Replicas: 1}, "Replicas 1 on a Redis Ring: want 0", false},
		{"replica timeout too short", Config{Client: c, Replicas: 1, ReplicaTimeout: time.Microsecond},
			"ReplicaTimeout 1µs: want 1ms to under a third of LeaseTTL (10s)", false},
		{"replica timeout too long", Config{Client: c, Replicas: 1, ReplicaTimeout: 10 * time.Second},
			"ReplicaTimeout 10s: want 1ms to under a third of LeaseTTL (10s)", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewLeased(tt.cfg)
			if !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), tt.text) || !strings.HasPrefix(err.Error(), "redisworker: ") {
				t.Errorf("NewLeased: %v, want %q naming %q", err, uidgen.ErrConfig, tt.text)
			}
			if tt.only {
				return
			}
			if _, err := List(t.Context(), tt.cfg); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("List: %v, want %q naming %q", err, uidgen.ErrConfig, tt.text)
			}
		})
	}

	for _, tt := range []struct{ prefix, want string }{
		{"", DefaultPrefix},
		{"orders:", "{orders:}"},
		{"{orders}:", "{orders}:"},
		{"eu:{orders}:", "eu:{orders}:"},
	} {
		l, err := NewLeased(Config{Client: c, Prefix: tt.prefix})
		if err != nil {
			t.Fatalf("prefix %q: %v", tt.prefix, err)
		}
		if l.prefix != tt.want {
			t.Errorf("prefix %q keeps its keys under %q, want %q: one hash tag, so one slot", tt.prefix, l.prefix, tt.want)
		}
	}
	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}})
	defer cluster.Close()
	if _, err := NewLeased(Config{Client: cluster, Replicas: 1}); err != nil {
		t.Errorf("a cluster client with a replica asked: %v", err)
	}

	l, err := NewLeased(Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	for _, maxID := range []int64{0, -1} {
		if _, err := l.LeaseWorkerID(t.Context(), maxID); !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), fmt.Sprintf("LeaseWorkerID given a largest worker ID of %d: want 1 or more", maxID)) {
			t.Errorf("LeaseWorkerID(%d): %v, want %q naming it", maxID, err, uidgen.ErrConfig)
		}
	}
}

// TestLeaseConformance runs leasetest's suite on one server, each fleet
// under a prefix of its own, every take delayed by jitter.
func TestLeaseConformance(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client(t)
	c.AddHook(jitter{max: 5 * time.Millisecond})
	leasetest.Run(t, redisStore{s: s, c: c})
}

// redisStore is the leasetest.Store of a Redis server.
type redisStore struct {
	s *redistest.Server
	c redis.UniversalClient
}

func (s redisStore) Fleet(t *testing.T) leasetest.Fleet {
	return fleet{s: s.s, c: s.c, prefix: "{" + t.Name() + "}:"}
}

func (f fleet) Leased(_ testing.TB, o leasetest.Options) (uidgen.Leaser, error) {
	l, err := NewLeased(Config{Client: f.c, Prefix: f.prefix, LeaseTTL: o.TTL, LeaseHorizon: o.Horizon, WorkerIDs: o.WorkerIDs})
	return leasetest.Tune(l, err, func(l *Leased) { l.now, l.poll, l.timing.Every = o.Now, o.Poll, o.Every })
}

func (f fleet) Op() string                            { return "redisworker: lease a worker ID under " + f.prefix }
func (f fleet) Expire(t testing.TB, id int64)         { f.expire(t, id) }
func (f fleet) Reserved(t testing.TB, id int64) int64 { return f.reserved(t, id) }
func (f fleet) Reserve(t testing.TB, id, sec int64)   { f.reserve(t, id, sec) }
func (f fleet) List(ctx context.Context) ([]uidgen.LeaseRow, error) {
	return List(ctx, Config{Client: f.c, Prefix: f.prefix})
}

// Store returns a keyStore of l's held key, of a Leased of the default
// TTL: the one a renewal of l restarts with its own.
func (f fleet) Store(t testing.TB, l uidgen.Lease) leasing.Store {
	return f.storeOf(t, f.leased(t, Config{}), l.(*lease))
}

// TestKeys: a fleet's keys read as docs/redis.md's "The keys" shows: held:ID names
// the holder and its random token and expires within the TTL,
// reserved:ID holds the lease's reservation; Release deletes held:ID.
func TestKeys(t *testing.T) {
	f := newFleet(t)
	l := f.leased(t, Config{})
	ctx := testContext(t)
	mustLease(t, l, 7)
	s := mustLease(t, l, 7)
	keys, err := f.c.Keys(ctx, f.prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	want := []string{"{test}:held:1", "{test}:held:2", "{test}:ids", "{test}:reserved:1", "{test}:reserved:2"}
	if !slices.Equal(keys, want) {
		t.Errorf("keys under the prefix: %q, want %q", keys, want)
	}
	var h holder
	value := f.held(t, 2)
	if err := json.Unmarshal([]byte(value), &h); err != nil || h.Host == "" || h.PID == 0 || h.Since.IsZero() {
		t.Errorf("held:2 holds %s (%v), want the holder's host, pid and since", value, err)
	}
	if token, err := hex.DecodeString(h.Token); err != nil || len(token) != 16 {
		t.Errorf("held:2 holds token %q (%v), want 16 random bytes in hex", h.Token, err)
	}
	if ttl, err := f.c.PTTL(ctx, heldKey(f.prefix, 2)).Result(); err != nil || ttl <= 0 || ttl > leasing.DefaultTTL {
		t.Errorf("held:2 expires in %v (%v), want within the lease TTL, %v", ttl, err, leasing.DefaultTTL)
	}
	if got := f.reserved(t, 2); got != s.Reserved() {
		t.Errorf("reserved:2 holds %d, want the lease's Reserved() %d", got, s.Reserved())
	}
	if err := s.Release(ctx, s.First()); err != nil {
		t.Fatal(err)
	}
	if v := f.held(t, 2); v != "" {
		t.Errorf("held:2 holds %s after Release, want it deleted", v)
	}
}

// TestLeaseLostExpired: once the held key expired, with no other holder
// yet, the old holder's renewal and release find no key of theirs: they
// fail, recreate no key and restart no TTL, and the next holder starts
// above the old reservation.
func TestLeaseLostExpired(t *testing.T) {
	f := newFleet(t)
	l := f.leased(t, Config{})
	ctx := testContext(t)
	a := mustLease(t, l, 1)
	store := f.storeOf(t, l, a)
	f.expire(t, 1)
	keep := f.reserved(t, 1)
	if err := store.Extend(ctx, keep+1000); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("the old holder's Extend after its key expired: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if err := store.Free(ctx, keep); !errors.Is(err, uidgen.ErrLeaseLost) {
		t.Errorf("the old holder's Free after its key expired: %v, want %q", err, uidgen.ErrLeaseLost)
	}
	if got, h := f.reserved(t, 1), f.held(t, 1); got != keep || h != "" {
		t.Errorf("after the old holder's Extend and Free, reserved:1 holds %d and held:1 %q, want %d and none", got, h, keep)
	}
	if c := mustLease(t, l, 1); c.First() <= a.Reserved() {
		t.Errorf("the next holder starts at %d, want above the old reservation %d", c.First(), a.Reserved())
	}
}

// TestRenewalRestartsTTL: a renewal restarts the held key's TTL.
func TestRenewalRestartsTTL(t *testing.T) {
	f := newFleet(t)
	const ttl = 3 * time.Second
	s := mustLease(t, f.leased(t, Config{LeaseTTL: ttl}), 1)
	ctx := testContext(t)
	// Let the key's TTL run down measurably, so that the restart shows.
	if err := f.c.PExpire(ctx, heldKey(f.prefix, 1), ttl/3).Err(); err != nil {
		t.Fatal(err)
	}
	renewNow(t, s)
	if left, err := f.c.PTTL(ctx, heldKey(f.prefix, 1)).Result(); err != nil || left <= ttl/3 || left > ttl {
		t.Errorf("held:1 expires in %v (%v) after the renewal, want the TTL restarted, %v", left, err, ttl)
	}
}

// jitter delays each acquireScript by a random time up to max before the
// client sends it: it widens the window between whatever the leaser read
// before the take and the take itself, so that the suite's concurrent leases
// see a take that trusts an earlier read.
type jitter struct{ max time.Duration }

func (j jitter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (j jitter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (j jitter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		// acquireScript is the only script of three keys.
		if args := cmd.Args(); len(args) > 2 && (cmd.Name() == "evalsha" || cmd.Name() == "eval") && fmt.Sprint(args[2]) == "3" {
			time.Sleep(rand.N(j.max))
		}
		return next(ctx, cmd)
	}
}

// TestBadKey: a value under the prefix that this package does not write fails
// LeaseWorkerID and List with uidgen.ErrBadKey naming the key, at once: no
// retry makes it right.
func TestBadKey(t *testing.T) {
	f := newFleet(t)
	for _, tt := range []struct {
		name  string
		write func(ctx context.Context, c redis.UniversalClient, prefix string) error
		text  string
	}{
		{"reservation not a second", func(ctx context.Context, c redis.UniversalClient, p string) error {
			c.ZAdd(ctx, idsKey(p), redis.Z{Score: 1, Member: 1})
			return c.Set(ctx, reservedKey(p, 1), "soon", 0).Err()
		}, `reserved:1 holds "soon"`},
		{"held key not JSON", func(ctx context.Context, c redis.UniversalClient, p string) error {
			c.ZAdd(ctx, idsKey(p), redis.Z{Score: 1, Member: 1})
			c.Set(ctx, reservedKey(p, 1), 1, 0)
			return c.Set(ctx, heldKey(p, 1), "pid 4242", time.Minute).Err()
		}, `held:1 holds "pid 4242"`},
		{"ID not a number", func(ctx context.Context, c redis.UniversalClient, p string) error {
			return c.ZAdd(ctx, idsKey(p), redis.Z{Score: 0, Member: "x"}).Err()
		}, `ids holds member "x"`},
		{"ID zero", func(ctx context.Context, c redis.UniversalClient, p string) error {
			return c.ZAdd(ctx, idsKey(p), redis.Z{Score: 0, Member: 0}).Err()
		}, `ids holds member "0"`},
		{"ID set of another type", func(ctx context.Context, c redis.UniversalClient, p string) error {
			return c.Set(ctx, idsKey(p), "1,2,3", 0).Err()
		}, "WRONGTYPE"},
		{"reservation of another type", func(ctx context.Context, c redis.UniversalClient, p string) error {
			c.ZAdd(ctx, idsKey(p), redis.Z{Score: 1, Member: 1})
			return c.HSet(ctx, reservedKey(p, 1), "second", 1).Err()
		}, "WRONGTYPE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := f
			f.prefix = "{" + t.Name() + "}:"
			ctx := testContext(t)
			if err := tt.write(ctx, f.c, f.prefix); err != nil {
				t.Fatal(err)
			}
			_, err := f.leased(t, Config{}).LeaseWorkerID(ctx, 7)
			if !errors.Is(err, uidgen.ErrBadKey) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("LeaseWorkerID: %v, want %q naming %q", err, uidgen.ErrBadKey, tt.text)
			}
			if _, err := List(ctx, Config{Client: f.c, Prefix: f.prefix}); !errors.Is(err, uidgen.ErrBadKey) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("List: %v, want %q naming %q", err, uidgen.ErrBadKey, tt.text)
			}
		})
	}
}

// TestUnreachable: a server that does not answer fails LeaseWorkerID when
// its context ends, with the last failure Redis gave, which names the
// address.
func TestUnreachable(t *testing.T) {
	// Each request fails at once, so that several fail before ctx ends.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true, MaxRetries: -1, DialerRetries: 1})
	defer c.Close()
	l, err := NewLeased(Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	l.poll = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	_, err = l.LeaseWorkerID(ctx, 7)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, uidgen.ErrNoFreeID) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("LeaseWorkerID from a server that does not answer: %v, want %q naming the address", err, context.DeadlineExceeded)
	}
}

// TestReplicas: with Config.Replicas, a take counts only once that many
// replicas acknowledged it. With none connected the take waits for them
// until its context ends, then fails with ErrReplicas naming the count and
// gives its ID back; with one connected, takes and renewals go through.
func TestReplicas(t *testing.T) {
	t.Run("none connected", func(t *testing.T) {
		f := newFleet(t)
		const wait = 100 * time.Millisecond
		l := f.leased(t, Config{Replicas: 1, ReplicaTimeout: wait})
		l.poll = 50 * time.Millisecond
		ctx, cancel := context.WithTimeout(testContext(t), time.Second)
		defer cancel()
		_, err := l.LeaseWorkerID(ctx, 7)
		if !errors.Is(err, ErrReplicas) || !errors.Is(err, context.DeadlineExceeded) ||
			!strings.Contains(err.Error(), "0 of 1 replicas within 100ms") {
			t.Fatalf("LeaseWorkerID with no replica connected: %v, want %q naming 0 of 1, and %q",
				err, ErrReplicas, context.DeadlineExceeded)
		}
		// The take the replicas never acknowledged gives its ID back and
		// keeps its reservation, which no later holder may start below.
		rows, err := List(testContext(t), Config{Client: f.c, Prefix: f.prefix})
		if err != nil || len(rows) != 1 || rows[0].ID != 1 || rows[0].Held || rows[0].Reserved == 0 {
			t.Errorf("List after the failed take: %+v, %v; want ID 1 free, its reservation kept", rows, err)
		}
	})
	t.Run("one connected", func(t *testing.T) {
		f := newFleet(t, "repl-diskless-sync-delay 0") // the replica syncs at once
		replica := redistest.Start(t, "replicaof 127.0.0.1 "+strconv.Itoa(f.s.Port()))
		waitReplicas(t, f.c, 1)
		l := f.leased(t, Config{Replicas: 1})
		s := mustLease(t, l, 7)
		renewNow(t, s)
		got, err := replica.Client(t).Get(testContext(t), reservedKey(f.prefix, s.WorkerID())).Result()
		if err != nil || got != strconv.FormatInt(s.Reserved(), 10) {
			t.Errorf("the replica's reserved:%d holds %q (%v), want the renewed reservation %d", s.WorkerID(), got, err, s.Reserved())
		}
	})
}

// waitReplicas waits until n replicas are connected to the server of c.
func waitReplicas(t testing.TB, c redis.UniversalClient, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // a full sync, on a loaded machine
	defer cancel()
	want := "connected_slaves:" + strconv.Itoa(n)
	for {
		info, err := c.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, want+"\r\n") && strings.Contains(info, "state=online") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d replicas not connected within 30s: %q, %v", n, info, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
