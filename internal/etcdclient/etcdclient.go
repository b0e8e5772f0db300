// Package etcdclient says how this module's etcd clients are made: the
// uidgen command's, and the test clusters' of package etcdtest, so that a
// fault test exercises the client the command runs.
package etcdclient

import (
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// The client's keepalive probes of an idle connection: a member that stops
// answering (paused, or cut off) is noticed within seconds, and the client
// moves to another endpoint, rather than at TCP's minutes.
const (
	keepAliveTime    = 5 * time.Second
	keepAliveTimeout = 3 * time.Second
)

// Config returns the configuration of a client of the members at endpoints
// ("http://10.0.0.1:2379"): it logs nothing, where clientv3.New without a
// Logger writes etcd's own log lines to standard error, and it probes an
// idle connection. The client connects lazily: an unreachable cluster fails
// the first request, under that request's context.
func Config(endpoints []string) clientv3.Config {
	return clientv3.Config{Endpoints: endpoints, Logger: zap.NewNop(),
		DialKeepAliveTime: keepAliveTime, DialKeepAliveTimeout: keepAliveTimeout}
}
