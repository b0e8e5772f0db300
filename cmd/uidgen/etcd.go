package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/etcdworker"
)

// endpointsEnv names the environment variable that stands in for -etcd.
const endpointsEnv = "UIDGEN_ETCD"

// etcdStore is the leaseStore of an etcd cluster: -etcd and
// -etcd-prefix.
type etcdStore struct {
	endpoints string
	prefix    string
}

func (s *etcdStore) Register(fs *flag.FlagSet) {
	fs.StringVar(&s.endpoints, "etcd", os.Getenv(endpointsEnv),
		"lease the worker ID from the etcd cluster at these comma-separated client URLs, e.g. http://127.0.0.1:2379 (default $"+endpointsEnv+")")
	fs.StringVar(&s.prefix, "etcd-prefix", etcdworker.DefaultPrefix, "with -etcd: the fleet's key prefix; fleets under other prefixes share the cluster")
}

func (s *etcdStore) Chosen() bool { return s.endpoints != "" }

// client returns a quiet client of -etcd's cluster.
func (s *etcdStore) client() (*clientv3.Client, error) {
	var endpoints []string
	for e := range strings.SplitSeq(s.endpoints, ",") {
		if e = strings.TrimSpace(e); e != "" {
			endpoints = append(endpoints, e)
		}
	}
	if len(endpoints) == 0 {
		return nil, fmt.Errorf("%w: -etcd %q names no endpoint", ErrUsage, s.endpoints)
	}
	return etcdworker.NewClient(endpoints, nil)
}

func (s *etcdStore) Leaser(ttl, horizon time.Duration) (uidgen.Leaser, func(), error) {
	c, err := s.client()
	if err != nil {
		return nil, nil, err
	}
	l, err := etcdworker.NewLeased(etcdworker.Config{Client: c, Prefix: s.prefix, LeaseTTL: ttl, LeaseHorizon: horizon})
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return l, func() { c.Close() }, nil
}

// List prints the fleet as `uidgen workers -dsn` prints the table: a
// lease's time left is the cluster's; a reservation is an instant in UTC,
// and how far it runs ahead of this machine's clock.
func (s *etcdStore) List(ctx context.Context, w io.Writer) error {
	c, err := s.client()
	if err != nil {
		return err
	}
	defer c.Close()
	rows, err := etcdworker.List(ctx, etcdworker.Config{Client: c, Prefix: s.prefix})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tHOST\tPID\tSINCE (UTC)\tLEASE LEFT\tRESERVED UNTIL (UTC)\tAHEAD")
	held := 0
	for _, r := range rows {
		state, host, pid, since, left, ahead := "free", "-", "-", "-", "-", "-"
		if r.Held {
			held++
			state, host, pid = "held", r.Host, fmt.Sprint(r.PID)
			since, left = r.Since.UTC().Format(time.DateTime), r.LeaseLeft.String()
		}
		if r.ReservedAhead > 0 {
			ahead = r.ReservedAhead.String()
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, state, host, pid, since, left,
			time.Unix(r.LastReserved, 0).UTC().Format(time.DateTime), ahead)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%d worker IDs under %s: %d held, %d free\n", len(rows), s.prefix, held, len(rows)-held)
	return err
}
