package etcdworker

import (
	"cmp"
	"fmt"
	"log/slog"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// DefaultPrefix is the key prefix of a fleet whose Config names none.
const DefaultPrefix = "/uidgen/"

// freePoll is how often LeaseWorkerID looks again when every ID is held: a
// released ID is free at once, an abandoned one after its TTL.
const freePoll = time.Second

// Config says which etcd cluster and which fleet in it. NewLeased and List
// take one; each reads the fields that concern it. Its zero value, but for
// Client, means the defaults.
type Config struct {
	// Client is the etcd cluster's client (clientv3.New). Required. It
	// stays the caller's to close, after the last Lease is released. A
	// client whose clientv3.Config has no Logger writes etcd's own log
	// lines to standard error; give it zap.NewNop() for none.
	Client *clientv3.Client

	// Prefix is the fleet's key prefix; empty means DefaultPrefix. A "/" is
	// added when it does not end in one, so that the fleet "/a" does not
	// read the keys of the fleet "/ab".
	Prefix string

	// LeaseTTL is how long a lease lasts without renewal, rounded up to
	// whole seconds: 30 s if zero; 2 s to 1 h, since etcd raises a TTL
	// below its own minimum (1.5 s at its defaults) to that minimum. The
	// holder renews every third of it, and a holder that died, or that is
	// cut off from the cluster's majority, keeps its ID from the fleet for
	// at most about this long. Only NewLeased reads it.
	LeaseTTL time.Duration

	// LeaseHorizon is how long a holder can go on without etcd: each renewal
	// reserves the seconds it will use over the horizon and a third of the TTL
	// at its pace: 10 min if zero; 1 s to 24 h, enough to bring a member back
	// to a cluster that lost its quorum. A crashed holder's ID stays reserved
	// up to a horizon ahead (docs/leases.md). Only NewLeased reads it.
	LeaseHorizon time.Duration

	// WorkerIDs is the worker IDs a lease may take; the zero range means
	// every ID, 1 to the largest the generator's layout has. A fleet that
	// leases inside 512-1023 never touches 0-511, which another fleet may
	// hold (see uidgen.WorkerIDRange). Only NewLeased reads it.
	WorkerIDs uidgen.WorkerIDRange

	// Logger is where each leased and released worker ID is logged, at
	// level Info, and lost leases and failing renewals, at level Warn. Nil
	// means nothing is logged.
	Logger *slog.Logger
}

// check returns cfg with its defaults filled in, without I/O. It fails, with an
// error wrapping uidgen.ErrConfig that names the field and the value, on a
// nil Client and a prefix that is not printable ASCII.
func (cfg Config) check() (Config, error) {
	if cfg.Client == nil {
		return cfg, fmt.Errorf("etcdworker: %w: Client is nil: want a *clientv3.Client of the etcd cluster", uidgen.ErrConfig)
	}
	cfg.Prefix = cmp.Or(cfg.Prefix, DefaultPrefix)
	for _, r := range cfg.Prefix {
		if r < ' ' || r > '~' {
			return cfg, fmt.Errorf("etcdworker: %w: Prefix %q holds %q, want printable ASCII", uidgen.ErrConfig, cfg.Prefix, r)
		}
	}
	if !strings.HasSuffix(cfg.Prefix, "/") {
		cfg.Prefix += "/"
	}
	cfg.LeaseTTL = cmp.Or(cfg.LeaseTTL, leasing.DefaultTTL)
	cfg.LeaseHorizon = cmp.Or(cfg.LeaseHorizon, leasing.DefaultHorizon)
	return cfg, nil
}

// heldKey and reservedKey are the keys of worker ID id under prefix.
func heldKey(prefix string, id int64) string     { return fmt.Sprintf("%sheld/%d", prefix, id) }
func reservedKey(prefix string, id int64) string { return fmt.Sprintf("%sreserved/%d", prefix, id) }
