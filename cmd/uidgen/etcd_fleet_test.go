package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen/etcdworker"
	"github.com/seed4d941b13/uidgen/internal/etcdtest"

	"github.com/seed4d941b13/uidgen/internal/fleettest"
)

// The lease fleet tests run `uidgen gen -etcd` as separate processes that
// start, finish, crash and pause around one fleet on a three-member
// cluster: package fleettest's scenarios, which the SQL table passes too,
// and the faults only etcd has, a member cut off and a leader lost.

// fleetStore is a fleet of its own, under a prefix no other test uses, on
// a cluster: a fleettest.Store.
type fleetStore struct {
	endpoints []string // the members the fleet's processes talk to
	prefix    string
	cfg       etcdworker.Config // for One, through a client on every member
}

// newFleetStore returns a fleet of t's own on c, whose processes talk to
// the members at endpoints, or to all where none is given.
func newFleetStore(t *testing.T, c *etcdtest.Cluster, endpoints ...string) *fleetStore {
	t.Helper()
	if len(endpoints) == 0 {
		endpoints = c.Endpoints()
	}
	prefix := "/uidgen-test/" + t.Name() + "/"
	return &fleetStore{endpoints: endpoints, prefix: prefix,
		cfg: etcdworker.Config{Client: c.Client(t), Prefix: prefix}}
}

// stores returns a fleettest.NewStore of fleets on a three-member cluster
// of t's own, which they share.
func stores(t *testing.T) fleettest.NewStore {
	c := etcdtest.Start(t, 3)
	return func(t *testing.T) fleettest.Store { return newFleetStore(t, c) }
}

func (s *fleetStore) Args() []string {
	return []string{"-etcd", strings.Join(s.endpoints, ","), "-etcd-prefix", s.prefix}
}

func (s *fleetStore) One(ctx context.Context) (held bool, reserved int64, err error) {
	rows, err := etcdworker.List(ctx, s.cfg)
	if err != nil {
		return false, 0, err
	}
	if len(rows) != 1 || rows[0].ID != 1 {
		return false, 0, fmt.Errorf("the fleet under %s holds %+v, want worker ID 1 alone", s.prefix, rows)
	}
	return rows[0].Held, rows[0].Reserved, nil
}

// TestEtcdLeaseReuse: fleettest.Reuse on an etcd fleet.
func TestEtcdLeaseReuse(t *testing.T) { fleettest.Reuse(t, stores(t)) }

// TestEtcdLeaseCrash: fleettest.Crash on an etcd fleet.
func TestEtcdLeaseCrash(t *testing.T) { fleettest.Crash(t, stores(t)) }

// TestEtcdLeasePause: fleettest.Pause on an etcd fleet.
func TestEtcdLeasePause(t *testing.T) { fleettest.Pause(t, stores(t)) }
