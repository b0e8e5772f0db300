package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// leaseStore is a place besides the SQL worker table that lends worker IDs:
// an etcd cluster (etcdStore). Main takes it as a value, so that tests can
// drive the flags' rules with a store in memory.
type leaseStore interface {
	// Register adds the store's flags to fs, on every command that makes
	// IDs (gen, bench, serve) and on workers. Their names differ from the
	// command's own flags, which flag.FlagSet would not redefine.
	Register(fs *flag.FlagSet)

	// Chosen says whether the parsed flags ask for this store. With it
	// chosen, -worker, -dsn, -table and -lease are usage errors.
	Chosen() bool

	// Leaser returns the uidgen.Leaser the flags describe, with the lease
	// TTL and horizon given by -lease-ttl and -lease-horizon (0: the
	// store's defaults), and a func that releases what it holds, called
	// once every generator made with the Leaser is closed. An error that
	// wraps ErrUsage exits 2, any other 1.
	Leaser(ttl, horizon time.Duration) (uidgen.Leaser, func(), error)

	// List writes the store's worker IDs to w, as `uidgen workers` writes
	// the table's, within ctx.
	List(ctx context.Context, w io.Writer) error
}

// storeFlags is a command's leaseStore and the flags it registered on the
// command's flag set.
type storeFlags struct {
	store leaseStore
	fs    *flag.FlagSet
	names []string // the flags store.Register added, in fs's order
}

func (s *storeFlags) register(fs *flag.FlagSet, store leaseStore) {
	s.store, s.fs = store, fs
	had := make(map[string]bool)
	fs.VisitAll(func(f *flag.Flag) { had[f.Name] = true })
	store.Register(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if !had[f.Name] {
			s.names = append(s.names, f.Name)
		}
	})
}

// chosen says whether the parsed flags ask for the store.
func (s *storeFlags) chosen() bool { return s.store.Chosen() }

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
	by := "the lease store"
	if name := setFlag(s.fs, s.names...); name != "" {
		by = "-" + name
	}
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
