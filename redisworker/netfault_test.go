package redisworker

import (
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/leasetest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
	"github.com/seed4d941b13/uidgen/internal/redistest"
)

// TestNetFault runs leasetest's network fault scenarios on one server,
// each holder that the scenarios cut off reaching it through a proxy.
func TestNetFault(t *testing.T) {
	s := redistest.Start(t)
	leasetest.RunNetFaults(t, netStore{redisStore{s: s, c: s.Client(t)}})
}

// netStore is the leasetest.NetStore of a Redis server.
type netStore struct{ redisStore }

func (s netStore) Addr() string { return s.s.Addr() }

// Via returns f's prefix on a client of addr.
func (netStore) Via(t testing.TB, f leasetest.Fleet, addr string) leasetest.Fleet {
	pf := f.(fleet)
	pf.c = redistest.ClientVia(t, addr)
	return pf
}

func (netStore) MinTTL() time.Duration { return leasing.MinTTL }
