package etcdworker

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/seed4d941b13/uidgen"
)

// The client's keepalive probes of an idle connection: a member that stops
// answering (paused, or cut off) is noticed within seconds, and the client
// moves to another endpoint, rather than at TCP's minutes.
const (
	keepAliveTime    = 5 * time.Second
	keepAliveTimeout = 3 * time.Second
)

// NewClient returns an etcd client of the cluster whose members answer at
// endpoints ("http://10.0.0.1:2379"): the client a Config needs. The etcd
// client's own log lines go to logger, at their levels, or nowhere when
// logger is nil; clientv3.New without a Logger writes them to standard
// error. It connects lazily: an unreachable cluster fails the first request,
// under that request's context. Close it after the last Lease is released.
func NewClient(endpoints []string, logger *slog.Logger) (*clientv3.Client, error) {
	if len(endpoints) == 0 {
		return nil, fmt.Errorf("etcdworker: %w: no endpoints", uidgen.ErrConfig)
	}
	zl := zap.NewNop()
	if logger != nil {
		zl = zap.New(slogCore{logger})
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: endpoints, Logger: zl,
		DialKeepAliveTime: keepAliveTime, DialKeepAliveTimeout: keepAliveTimeout})
	if err != nil {
		return nil, fmt.Errorf("etcdworker: etcd client of %v: %w", endpoints, err)
	}
	return c, nil
}

// slogCore is a zapcore.Core that writes the etcd client's zap entries to a
// slog.Logger, so a program configures one logger for both.
type slogCore struct{ l *slog.Logger }

func (c slogCore) Enabled(level zapcore.Level) bool {
	return c.l.Enabled(context.Background(), slogLevel(level))
}

func (c slogCore) With(fields []zapcore.Field) zapcore.Core {
	return slogCore{c.l.With(attrs(fields)...)}
}

func (c slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	c.l.Log(context.Background(), slogLevel(e.Level), "etcd client: "+e.Message, attrs(fields)...)
	return nil
}

func (c slogCore) Sync() error { return nil }

// slogLevel maps zap's levels onto slog's: panic and fatal, which the
// client does not use, count as errors.
func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return slog.LevelDebug
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	}
	return slog.LevelError
}

// attrs returns zap fields as slog attributes, sorted by key.
func attrs(fields []zapcore.Field) []any {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range fields {
		f.AddTo(enc)
	}
	keys := make([]string, 0, len(enc.Fields))
	for k := range enc.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]any, 0, len(keys))
	for _, k := range keys {
		out = append(out, slog.Any(k, enc.Fields[k]))
	}
	return out
}
