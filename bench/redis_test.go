package bench

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/internal/leasing"
	"github.com/seed4d941b13/uidgen/internal/redistest"
	"github.com/seed4d941b13/uidgen/redisworker"
)

// The Redis benchmarks measure what a worker ID leased from Redis costs the
// cached generator, as the etcd benchmarks do for etcd: its takes, beside a
// static worker ID's in the same run, and the commands its lease sends,
// flat out and idle. They count commands on the client, in a go-redis hook:
// each command, alone or in a pipeline (a renewal with WAIT is two).

// commandCounter is a redis.Hook that counts the commands sent.
type commandCounter struct{ n atomic.Int64 }

func (c *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.Add(int64(len(cmds)))
		return next(ctx, cmds)
	}
}

// openRedisLeased returns a cached generator with the defaults on a worker
// ID leased with the defaults from a throwaway Redis of the benchmark's own
// (appendfsync always), closed when the benchmark ends, and the count of
// commands sent to Redis.
func openRedisLeased(b *testing.B) (*cached.Generator, *atomic.Int64) {
	c := redistest.Start(b).Client(b) // cleanups run last first: after the generator's Close
	counter := new(commandCounter)
	c.AddHook(counter)
	l, err := redisworker.NewLeased(redisworker.Config{Client: c})
	if err != nil {
		b.Fatal(err)
	}
	return openWith(b, cached.Config{Leaser: l}), &counter.n
}

// BenchmarkRedisLeased takes IDs flat out from one goroutine of a cached
// generator with the defaults, its worker ID static and then leased from
// Redis, so that they alternate within a run and its -count rounds. The
// leased one also reports the commands a second its lease sent meanwhile.
func BenchmarkRedisLeased(b *testing.B) {
	b.Run("assigner=static", func(b *testing.B) {
		serial(b, openWith(b, cached.Config{Assigner: uidgen.Static(1)}).NextID)
	})
	b.Run("assigner=leased-redis", func(b *testing.B) {
		g, commands := openRedisLeased(b)
		before := commands.Load()
		serial(b, g.NextID)
		if s := b.Elapsed().Seconds(); s > 0 {
			b.ReportMetric(float64(commands.Load()-before)/s, "cmds/s")
		}
	})
}

// BenchmarkRedisLeasedIdle measures the commands a second of an idle
// generator's Redis lease: each op waits for the next renewal, one script
// every third of the default TTL. Each op takes seconds: run it with
// -benchtime 1x or a few x.
func BenchmarkRedisLeasedIdle(b *testing.B) {
	g, commands := openRedisLeased(b)
	if _, err := g.NextID(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	before := commands.Load()
	for range b.N {
		waitStatement(b, commands, leasing.DefaultTTL)
	}
	b.ReportMetric(float64(commands.Load()-before)/b.Elapsed().Seconds(), "cmds/s")
}
