package worker

import (
	"context"
	"strings"
)

// warnDurability logs at level Warn where the SQLite connection would not
// keep a reservation through a machine crash: PRAGMA synchronous below
// FULL (2) lets a commit return before it reaches the disk, so a power cut
// can take back a reservation whose seconds were used, and a new holder
// could use them again. It decides nothing: the program chose the DSN.
// Only a table in a local file (SQLite) is asked; a server keeps its own
// durability (docs/leases.md's "Failover: what the database must keep").
func (l *Leased) warnDurability(ctx context.Context) {
	var sync int
	var mode string
	if err := l.db.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
		return
	}
	if err := l.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return
	}
	if sync >= 2 {
		return
	}
	l.logger.WarnContext(ctx, "worker: the SQLite connection's synchronous setting is below FULL: a machine crash can lose "+
		"the last reservations, and a later holder of their worker IDs use their seconds again; open the file with "+
		"_pragma=synchronous(FULL) in the DSN, which every connection of the pool runs", "table", l.table, "synchronous", sync, "journal_mode", strings.ToLower(mode))
}
