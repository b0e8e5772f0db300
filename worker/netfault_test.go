package worker

import (
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// TestNetFault runs leasetest's network fault scenarios on the database
// servers, side by side, each holder that the scenarios cut off reaching
// the shared server through a proxy. A SQLite file has no network.
func TestNetFault(t *testing.T) {
	for _, kind := range dbtest.ServerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			srv := dbtest.Shared(t, kind)
			leasetest.RunNetFaults(t, netStore{sqlStore{srv.Open(t)}, srv})
		})
	}
}

// netStore is the leasetest.NetStore of a database server.
type netStore struct {
	sqlStore
	srv dbtest.Server
}

func (s netStore) Addr() string { return s.srv.Addr() }

// Via returns f's table on a database opened at addr.
func (s netStore) Via(t testing.TB, f leasetest.Fleet, addr string) leasetest.Fleet {
	tf := f.(tableFleet)
	tf.db = s.srv.With("", "", addr, "").Open(t)
	return tf
}

func (netStore) MinTTL() time.Duration { return leasing.MinTTL }
