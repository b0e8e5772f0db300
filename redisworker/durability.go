package redisworker

import (
	"context"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// warnDurability reads what the server says of its persistence and its
// replicas, and logs at level Warn each way it cannot keep what the leases
// need (docs/redis.md's "What each deployment promises"). It decides
// nothing: a managed Redis may refuse CONFIG GET or hide its replicas, and
// what it does not say it does not warn of. It asks l.primary: on a
// Cluster a command without a key would reach any primary.
func (l *Leased) warnDurability(ctx context.Context) {
	server, err := l.primary(ctx)
	if err != nil {
		return
	}
	for _, w := range durabilityWarnings(info(ctx, server, "persistence"), info(ctx, server, "replication"),
		appendfsync(ctx, server), l.replicas) {
		l.logger.WarnContext(ctx, "redisworker: "+w, "prefix", l.prefix)
	}
}

// durabilityWarnings returns what the server's INFO persistence and INFO
// replication fields, its appendfsync setting ("" where unknown) and the
// Replicas asked for say the leases cannot count on.
func durabilityWarnings(persistence, replication map[string]string, appendfsync string, replicas int) []string {
	var warn []string
	switch {
	case persistence["aof_enabled"] == "0":
		warn = append(warn, "the server keeps no append-only file: a restart loses every reservation written since its last snapshot, "+
			"and a holder restarted after it may reuse seconds (set appendonly yes and appendfsync always)")
	case appendfsync == "everysec":
		warn = append(warn, "appendfsync is everysec: a crash of the server's machine can lose the last second of reservations "+
			"(set appendfsync always, or count on replicas through Config.Replicas)")
	case appendfsync == "no":
		warn = append(warn, "appendfsync is no: a crash of the server's machine can lose reservations the kernel had not written "+
			"(set appendfsync always, or count on replicas through Config.Replicas)")
	}
	connected, known := replication["connected_slaves"]
	n, _ := strconv.Atoi(connected)
	switch {
	case known && n < replicas:
		warn = append(warn, "Config.Replicas is "+strconv.Itoa(replicas)+" but "+connected+
			" replicas are connected: every take and renewal will fail until enough are")
	case known && n > 0 && replicas == 0:
		warn = append(warn, connected+" replicas are connected but Config.Replicas is 0: a failover to one can lose "+
			"reservations the primary acknowledged (set Config.Replicas to the replicas a failover may promote)")
	}
	return warn
}

// info returns the fields of one section of the server's INFO, none where
// it fails.
func info(ctx context.Context, server redis.Cmdable, section string) map[string]string {
	fields := map[string]string{}
	text, err := server.Info(ctx, section).Result()
	if err != nil {
		return fields
	}
	for line := range strings.SplitSeq(text, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			fields[k] = v
		}
	}
	return fields
}

// appendfsync returns the server's appendfsync setting, "" where CONFIG GET
// is refused or the append-only file is off.
func appendfsync(ctx context.Context, server redis.Cmdable) string {
	v, err := server.ConfigGet(ctx, "appendfsync").Result()
	if err != nil {
		return ""
	}
	return v["appendfsync"]
}
