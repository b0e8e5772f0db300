package worker

import (
	"context"
	"time"
)

// Row is one row of the worker table, as a person looking at a fleet wants
// to see it.
type Row struct {
	ID     int64
	Leased bool // a leased ID, which comes back; otherwise a disposable one, used once
	Type   NodeType
	Host   string // HOST_NAME
	Port   string // PORT

	// Held says a leased ID's lease has not expired by the database's
	// clock; a leased row that is not held is free.
	Held bool
	// LeaseLeft is how long the lease has left by the database's clock:
	// negative once it has expired, 0 for a disposable row.
	LeaseLeft time.Duration
	// LastReserved is the last Unix second reserved for the ID's holders,
	// which they may still use; 0 for a disposable row.
	LastReserved int64
	// ReservedAhead is how far LastReserved runs ahead of the database's
	// clock, never below 0. For a held ID it is how long its holder goes on
	// without the database while it uses one second a second (less while
	// it borrows faster); for a free one, how long the ID stays reserved
	// ahead, so that a new holder would start above the clock.
	ReservedAhead time.Duration
}

// List returns the rows of cfg.Table in cfg.DB, by ID. It reads the whole
// table, so a table that Baidu's Java assigner has filled for years is a
// long answer.
//
// It fails with an error wrapping uidgen.ErrNilDB or uidgen.ErrBadTable before
// sending anything, and otherwise as LeaseWorkerID does (ctx.Err(),
// uidgen.ErrUnreachable, uidgen.ErrAccessDenied, uidgen.ErrNoTable,
// ErrNoLeaseColumns), with the operation named "list the rows of".
func List(ctx context.Context, cfg Config) ([]Row, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	db, d, table := c.DB, c.d, c.Table
	op := "list the rows of " + table
	rows, err := db.QueryContext(ctx,
		"SELECT ID, LEASED, TYPE, HOST_NAME, PORT, COALESCE(LEASE_UNTIL - "+d.NowMillis()+", 0), COALESCE(RESERVED_UNTIL, 0),"+
			" COALESCE(RESERVED_UNTIL - "+d.NowSeconds()+", 0)"+
			" FROM "+table+" ORDER BY ID")
	if err != nil {
		return nil, fail(ctx, d, op, err)
	}
	defer rows.Close()
	var list []Row
	for rows.Next() {
		var r Row
		var leftMillis, aheadSeconds int64
		if err := rows.Scan(&r.ID, &r.Leased, &r.Type, &r.Host, &r.Port, &leftMillis, &r.LastReserved, &aheadSeconds); err != nil {
			return nil, fail(ctx, d, op, err)
		}
		if r.Leased {
			r.LeaseLeft = time.Duration(leftMillis) * time.Millisecond
			r.Held = r.LeaseLeft > 0
			r.ReservedAhead = time.Duration(max(aheadSeconds, 0)) * time.Second
		} else {
			r.LeaseLeft, r.LastReserved = 0, 0
		}
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, d, op, err)
	}
	return list, nil
}
