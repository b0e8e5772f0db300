package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/etcdworker"
	"github.com/seed4d941b13/uidgen/internal/etcdtest"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// The etcd benchmarks measure what a worker ID leased from etcd costs the
// cached generator: its takes, beside a static worker ID's in the same run,
// and the requests its lease sends to etcd, flat out and idle. They count
// requests on the client, in gRPC interceptors: every unary call (a
// transaction, a grant) and every stream opened (a keep-alive opens one,
// sends one request and reads one answer).

// openEtcdLeased returns a cached generator with the defaults on a worker
// ID leased with the defaults from a one-member etcd cluster of the
// benchmark's own, closed when the benchmark ends, and the count of
// requests sent to etcd.
func openEtcdLeased(b *testing.B) (*cached.Generator, *atomic.Int64) {
	cluster := etcdtest.Start(b, 1)
	requests := new(atomic.Int64)
	count := func() { requests.Add(1) }
	c, err := clientv3.New(clientv3.Config{Endpoints: cluster.Endpoints(), Logger: zap.NewNop(),
		DialOptions: []grpc.DialOption{
			grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn,
				invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
				count()
				return invoker(ctx, method, req, reply, cc, opts...)
			}),
			grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
				streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
				count()
				return streamer(ctx, desc, cc, method, opts...)
			}),
		}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() }) // cleanups run last first: after the generator's Close
	l, err := etcdworker.NewLeased(etcdworker.Config{Client: c})
	if err != nil {
		b.Fatal(err)
	}
	return openWith(b, cached.Config{Leaser: l}), requests
}

// BenchmarkEtcdLeased takes IDs flat out from one goroutine of a cached
// generator with the defaults, its worker ID static and then leased from
// etcd, so that they alternate within a run and its -count rounds. The
// leased one also reports the requests a second its lease sent meanwhile.
func BenchmarkEtcdLeased(b *testing.B) {
	b.Run("assigner=static", func(b *testing.B) {
		serial(b, openWith(b, cached.Config{Assigner: uidgen.Static(1)}).NextID)
	})
	b.Run("assigner=leased-etcd", func(b *testing.B) {
		g, requests := openEtcdLeased(b)
		before := requests.Load()
		serial(b, g.NextID)
		if s := b.Elapsed().Seconds(); s > 0 {
			b.ReportMetric(float64(requests.Load()-before)/s, "reqs/s")
		}
	})
}

// BenchmarkEtcdLeasedIdle measures the requests a second of an idle
// generator's etcd lease: each op waits for the next renewal, a keep-alive
// and a transaction every third of the default TTL, and for its last
// request. Each op takes seconds: run it with -benchtime 1x or a few x.
func BenchmarkEtcdLeasedIdle(b *testing.B) {
	g, requests := openEtcdLeased(b)
	if _, err := g.NextID(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	before := requests.Load()
	for range b.N {
		waitStatement(b, requests, leasing.DefaultTTL)
		waitQuiet(requests, 500*time.Millisecond)
	}
	b.ReportMetric(float64(requests.Load()-before)/b.Elapsed().Seconds(), "reqs/s")
}

// waitQuiet waits until requests has not grown for quiet: a renewal's
// requests follow each other within milliseconds.
func waitQuiet(requests *atomic.Int64, quiet time.Duration) {
	for n := requests.Load(); ; n = requests.Load() {
		time.Sleep(quiet) // polls a counter; a renewal every few seconds bounds it
		if requests.Load() == n {
			return
		}
	}
}
