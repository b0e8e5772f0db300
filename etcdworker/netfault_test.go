package etcdworker

import (
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/etcdtest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// TestNetFault runs leasetest's network fault scenarios on one etcd
// member, each holder that the scenarios cut off reaching it through a
// proxy.
func TestNetFault(t *testing.T) {
	cluster := etcdtest.Start(t, 1)
	leasetest.RunNetFaults(t, netStore{etcdStore{cluster.Client(t)}, cluster})
}

// netStore is the leasetest.NetStore of a one-member cluster.
type netStore struct {
	etcdStore
	cluster *etcdtest.Cluster
}

func (s netStore) Addr() string { return strings.TrimPrefix(s.cluster.Endpoints()[0], "http://") }

// Via returns f's prefix on a client of endpoint addr.
func (netStore) Via(t testing.TB, f leasetest.Fleet, addr string) leasetest.Fleet {
	pf := f.(fleet)
	pf.c = etcdtest.Client(t, "http://"+addr)
	return pf
}

func (netStore) MinTTL() time.Duration { return leasing.MinEtcdTTL }
