package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/etcdworker"
	"github.com/seed4d941b13/uidgen/internal/etcdclient"
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
	fs.StringVar(&s.endpoints, "etcd", "",
		"worker ID leases in the etcd cluster at these comma-separated client URLs, e.g. http://127.0.0.1:2379 (default $"+endpointsEnv+")")
	fs.StringVar(&s.prefix, "etcd-prefix", etcdworker.DefaultPrefix, "with -etcd: the fleet's key prefix; fleets under other prefixes share the cluster")
}

func (s *etcdStore) Chosen() bool { return s.endpoints != "" }

func (s *etcdStore) Flag() string { return "etcd" }

func (s *etcdStore) EnvSet() []string { return envSet(endpointsEnv) }

func (s *etcdStore) FromEnv() { s.endpoints = os.Getenv(endpointsEnv) }

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
	c, err := clientv3.New(etcdclient.Config(endpoints))
	if err != nil {
		return nil, fmt.Errorf("etcd client of %v: %w", endpoints, err)
	}
	return c, nil
}

func (s *etcdStore) Leaser(ttl, horizon time.Duration, ids uidgen.WorkerIDRange) (uidgen.Leaser, func(), error) {
	c, err := s.client()
	if err != nil {
		return nil, nil, err
	}
	l, err := etcdworker.NewLeased(etcdworker.Config{Client: c, Prefix: s.prefix, LeaseTTL: ttl, LeaseHorizon: horizon, WorkerIDs: ids})
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return l, func() { c.Close() }, nil
}

// List prints the fleet (printFleet).
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
	return printFleet(w, rows, s.prefix)
}
