package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/redisworker"
)

// redisEnv names the environment variable that stands in for -redis.
const redisEnv = "UIDGEN_REDIS"

// quietRedis discards go-redis's own log lines (a dial that failed, pool
// notices), which it writes to stderr by default: the command reports the
// errors the calls return, once.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quietRedis{}) }

// redisStore is the leaseStore of a Redis deployment: -redis,
// -redis-sentinel with -redis-master, or -redis-cluster, and -redis-prefix
// and -redis-replicas. Its Leaser warns on stderr of a deployment that
// cannot keep what leases need.
type redisStore struct {
	stderr    io.Writer
	url       string
	sentinels string
	master    string
	cluster   string
	prefix    string
	replicas  int
}

func (s *redisStore) Register(fs *flag.FlagSet) {
	fs.StringVar(&s.url, "redis", "",
		"worker ID leases in the Redis server at this URL, e.g. redis://127.0.0.1:6379/0 (default $"+redisEnv+")")
	fs.StringVar(&s.sentinels, "redis-sentinel", "",
		"worker ID leases in the Redis primary that the Sentinels at these comma-separated HOST:PORTs watch, with -redis-master")
	fs.StringVar(&s.master, "redis-master", "", "with -redis-sentinel: the name the Sentinels know the primary by")
	fs.StringVar(&s.cluster, "redis-cluster", "",
		"worker ID leases in the Redis Cluster that the nodes at these comma-separated HOST:PORTs belong to")
	fs.StringVar(&s.prefix, "redis-prefix", redisworker.DefaultPrefix,
		"with a -redis flag: the fleet's key prefix, a Redis Cluster hash tag in braces; fleets under other prefixes share the deployment")
	fs.IntVar(&s.replicas, "redis-replicas", 0,
		"with a -redis flag: how many replicas must acknowledge each reservation (WAIT); set it to the replicas a failover may promote")
}

// Chosen counts -redis-master alone as a choice, so that Leaser says it
// needs -redis-sentinel rather than the worker ID coming from elsewhere.
func (s *redisStore) Chosen() bool {
	return s.url != "" || s.sentinels != "" || s.master != "" || s.cluster != ""
}

func (s *redisStore) Flag() string {
	switch {
	case s.url != "":
		return "redis"
	case s.sentinels != "":
		return "redis-sentinel"
	case s.cluster != "":
		return "redis-cluster"
	}
	return "redis-master"
}

func (s *redisStore) EnvSet() []string { return envSet(redisEnv) }

func (s *redisStore) FromEnv() { s.url = os.Getenv(redisEnv) }

// client returns a client of the deployment the flags name, whose contexts
// bound every request.
func (s *redisStore) client() (redis.UniversalClient, error) {
	var given []string
	for _, f := range []struct{ name, value string }{{"redis", s.url}, {"redis-sentinel", s.sentinels}, {"redis-cluster", s.cluster}} {
		if f.value != "" {
			given = append(given, "-"+f.name)
		}
	}
	if len(given) > 1 {
		return nil, fmt.Errorf("%w: %s and %s both given: the worker ID comes from one deployment", ErrUsage, given[0], given[1])
	}
	switch {
	case s.master != "" && s.sentinels == "":
		return nil, fmt.Errorf("%w: -redis-master %q needs -redis-sentinel: only Sentinels know a primary by name", ErrUsage, s.master)
	case s.cluster != "":
		addrs := addrList(s.cluster)
		if len(addrs) == 0 {
			return nil, fmt.Errorf("%w: -redis-cluster %q: want at least one node's HOST:PORT", ErrUsage, s.cluster)
		}
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ContextTimeoutEnabled: true}), nil
	case s.sentinels != "":
		addrs := addrList(s.sentinels)
		if len(addrs) == 0 || s.master == "" {
			return nil, fmt.Errorf("%w: -redis-sentinel %q and -redis-master %q: want at least one Sentinel address and the primary's name",
				ErrUsage, s.sentinels, s.master)
		}
		return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: s.master, SentinelAddrs: addrs,
			ContextTimeoutEnabled: true}), nil
	}
	opts, err := redis.ParseURL(s.url)
	if err != nil {
		return nil, fmt.Errorf("%w: -redis %q: %v", ErrUsage, s.url, err)
	}
	opts.ContextTimeoutEnabled = true
	return redis.NewClient(opts), nil
}

// addrList returns the addresses of a comma-separated list, blanks left
// out.
func addrList(list string) []string {
	var addrs []string
	for a := range strings.SplitSeq(list, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	return addrs
}

// config returns the redisworker Config of the flags, with client.
func (s *redisStore) config(c redis.UniversalClient) redisworker.Config {
	return redisworker.Config{Client: c, Prefix: s.prefix, Replicas: s.replicas,
		Logger: slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
}

func (s *redisStore) Leaser(ttl, horizon time.Duration, ids uidgen.WorkerIDRange) (uidgen.Leaser, func(), error) {
	c, err := s.client()
	if err != nil {
		return nil, nil, err
	}
	cfg := s.config(c)
	cfg.LeaseTTL, cfg.LeaseHorizon, cfg.WorkerIDs = ttl, horizon, ids
	l, err := redisworker.NewLeased(cfg)
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return l, func() { c.Close() }, nil
}

// List prints the fleet (printFleet).
func (s *redisStore) List(ctx context.Context, w io.Writer) error {
	c, err := s.client()
	if err != nil {
		return err
	}
	defer c.Close()
	rows, err := redisworker.List(ctx, s.config(c))
	if err != nil {
		return err
	}
	return printFleet(w, rows, s.prefix)
}
