package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// leaseStore is a place besides the SQL worker table that lends worker IDs:
// an etcd cluster (etcdStore), a Redis deployment (redisStore), or all of
// them side by side (storeSet). Main takes it as a value, so that tests can
// drive the flags' rules with a store in memory.
type leaseStore interface {
	// Register adds the store's flags to fs, on every command that makes
	// IDs (gen, bench, serve) and on workers. Their names differ from the
	// command's own flags, which flag.FlagSet would not redefine.
	Register(fs *flag.FlagSet)

	// Chosen says whether the parsed flags ask for this store. With it
	// chosen, -worker, -dsn, -table and -lease are usage errors.
	Chosen() bool

	// Flag names the flag that chose the store, without its dash, for
	// errors: "etcd".
	Flag() string

	// EnvSet returns the environment variables that stand in for the
	// store's choosing flag and are set, "$UIDGEN_ETCD"; FromEnv chooses
	// the store by them. Flags beat them (storeFlags.fromEnv).
	EnvSet() []string
	FromEnv()

	// Leaser returns the uidgen.Leaser the flags describe, with the lease
	// TTL and horizon given by -lease-ttl and -lease-horizon (0: the
	// store's defaults) and the worker IDs given by -worker-ids (zero:
	// all), and a func that releases what it holds, called once every
	// generator made with the Leaser is closed. An error that wraps
	// ErrUsage exits 2, any other 1.
	Leaser(ttl, horizon time.Duration, ids uidgen.WorkerIDRange) (uidgen.Leaser, func(), error)

	// List writes the store's worker IDs to w, as `uidgen workers` writes
	// the table's, within ctx.
	List(ctx context.Context, w io.Writer) error
}

// storeSet offers every store's flags on one command; the one the flags
// choose leases and lists. Two chosen at once is a usage error that names
// both flags.
type storeSet []leaseStore

// newStores returns the storeSet the command offers: etcd and Redis. The
// Redis store warns on stderr of a deployment that cannot keep its leases.
func newStores(stderr io.Writer) storeSet { return storeSet{&etcdStore{}, &redisStore{stderr: stderr}} }

func (ss storeSet) Register(fs *flag.FlagSet) {
	for _, s := range ss {
		s.Register(fs)
	}
}

func (ss storeSet) Chosen() bool { return slices.ContainsFunc(ss, leaseStore.Chosen) }

func (ss storeSet) Flag() string {
	if i := slices.IndexFunc(ss, leaseStore.Chosen); i >= 0 {
		return ss[i].Flag()
	}
	return ""
}

func (ss storeSet) EnvSet() []string {
	var set []string
	for _, s := range ss {
		set = append(set, s.EnvSet()...)
	}
	return set
}

func (ss storeSet) FromEnv() {
	for _, s := range ss {
		if len(s.EnvSet()) > 0 {
			s.FromEnv()
		}
	}
}

// envSet returns $name where the variable name is set and not empty.
func envSet(name string) []string {
	if os.Getenv(name) == "" {
		return nil
	}
	return []string{"$" + name}
}

// one returns the store chosen, or a usage error naming the first two
// chosen.
func (ss storeSet) one() (leaseStore, error) {
	var chosen []leaseStore
	for _, s := range ss {
		if s.Chosen() {
			chosen = append(chosen, s)
		}
	}
	if len(chosen) > 1 {
		return nil, fmt.Errorf("%w: -%s and -%s both given: the worker ID is leased from one store", ErrUsage,
			chosen[0].Flag(), chosen[1].Flag())
	}
	return chosen[0], nil
}

func (ss storeSet) Leaser(ttl, horizon time.Duration, ids uidgen.WorkerIDRange) (uidgen.Leaser, func(), error) {
	s, err := ss.one()
	if err != nil {
		return nil, nil, err
	}
	return s.Leaser(ttl, horizon, ids)
}

func (ss storeSet) List(ctx context.Context, w io.Writer) error {
	s, err := ss.one()
	if err != nil {
		return err
	}
	return s.List(ctx, w)
}

// storeFlags is a command's leaseStore and the flags it registered on the
// command's flag set.
type storeFlags struct {
	leaseStore
	fs    *flag.FlagSet
	names []string // the flags store.Register added, in fs's order
}

func (s *storeFlags) register(fs *flag.FlagSet, store leaseStore) {
	s.leaseStore, s.fs = store, fs
	had := make(map[string]bool)
	fs.VisitAll(func(f *flag.Flag) { had[f.Name] = true })
	store.Register(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if !had[f.Name] {
			s.names = append(s.names, f.Name)
		}
	})
}

// fromEnv lets the environment choose where worker IDs come from, where no
// flag did: $UIDGEN_DSN (already *dsn, -dsn's default), or a store's
// variable ($UIDGEN_ETCD, $UIDGEN_REDIS), whichever alone is set. A flag
// that chooses (a store's, or one of sources: -dsn, -worker) beats every
// variable, so a variable set for other runs never conflicts with it; two
// variables set and no flag is a usage error naming both.
func (s *storeFlags) fromEnv(dsn *string, sources ...string) error {
	if s.Chosen() || setFlag(s.fs, sources...) != "" {
		if setFlag(s.fs, "dsn") == "" {
			*dsn = "" // $UIDGEN_DSN gives way to the flag that chose
		}
		return s.unchosen()
	}
	set := s.EnvSet()
	if *dsn != "" {
		set = append([]string{"$" + dsnEnv}, set...)
	}
	switch {
	case len(set) > 1:
		return fmt.Errorf("%w: %s are both set and no flag chooses between them: give -dsn, -%s or another store's flag",
			ErrUsage, strings.Join(set[:2], " and "), s.names[0])
	case len(set) == 1 && *dsn == "":
		s.FromEnv()
	}
	return s.unchosen()
}

// unchosen returns a usage error naming a store's flag given while no
// store is chosen: -redis-prefix without -redis does nothing.
func (s *storeFlags) unchosen() error {
	if name := setFlag(s.fs, s.names...); name != "" && !s.Chosen() {
		return fmt.Errorf("%w: -%s given, but no store it configures: it goes with %s", ErrUsage, name, s.choosers())
	}
	return nil
}

// choosers returns the store flags that choose a store, for a message:
// those of s.names that take a value a store is chosen by.
func (s *storeFlags) choosers() string {
	var flags []string
	for _, n := range s.names {
		if !strings.Contains(n, "-") || n == "redis-sentinel" || n == "redis-cluster" {
			flags = append(flags, n)
		}
	}
	return dashed(flags, " or ")
}

// orStore returns what to add to "-lease" where the store's flags also
// lease.
func (s *storeFlags) orStore() string {
	return " or the lease store (" + dashed(s.names, ", ") + ")"
}

// conflict returns a usage error naming the first of names set on fs and
// the store's flag, when the store is chosen and so leaves names without
// use; with says what the store does instead.
func (s *storeFlags) conflict(with string, names ...string) error {
	bad := setFlag(s.fs, names...)
	if bad == "" {
		return nil
	}
	by := "-" + s.Flag()
	all := dashed(names, ", ")
	if i := strings.LastIndex(all, ", "); i >= 0 {
		all = all[:i] + " and " + all[i+2:]
	}
	return fmt.Errorf("%w: -%s and %s both given: with %s, %s, and %s have no use", ErrUsage, bad, by, by, with, all)
}

// dashed returns names as flags, "-a", joined by sep.
func dashed(names []string, sep string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString("-" + n)
	}
	return b.String()
}
