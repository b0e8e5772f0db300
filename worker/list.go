package worker

import (
	"context"
	"database/sql"
	"time"
)

// Row is one worker ID of a fleet, as a person looking at it wants to see
// it: a row of the worker table (List), or the keys that etcdworker and
// redisworker keep for the ID (their List). A field that a store does not
// keep is zero, as each field says.
type Row struct {
	ID int64
	// Leased says the ID is leased, and comes back; otherwise it is a
	// disposable one, used once. etcd and Redis lease every ID.
	Leased bool

	// Held says a leased ID's lease has not expired by the store's clock;
	// a leased ID that is not held is free.
	Held bool
	// LeaseLeft is how long the lease has left by the store's clock, while
	// Held; 0 otherwise.
	LeaseLeft time.Duration
	// Reserved is the last Unix second reserved for the ID's holders,
	// which they may still use; 0 for a disposable row.
	Reserved int64
	// ReservedAhead is how far Reserved runs ahead of the clock (the
	// database's for the worker table, this process's for etcd and Redis),
	// never below 0. For a held ID it is how long its holder goes on
	// without the store while it uses one second a second (less while it
	// borrows faster); for a free one, how long the ID stays reserved
	// ahead, so that a new holder would start above the clock.
	ReservedAhead time.Duration

	// Host is the holder's host: in the worker table HOST_NAME, which
	// stays after the lease ends and names a disposable row's process; in
	// etcd and Redis only while Held.
	Host string
	// Type and Port are the worker table's TYPE and PORT, Baidu's
	// columns: a container's port, an actual host's start token
	// ("millis-random"), or in a SQLite file the process ("pid-4242");
	// zero in etcd and Redis.
	Type NodeType
	Port string
	// PID and Since are the holder's process ID and when it took the ID,
	// while Held, in etcd and Redis; zero in the worker table, whose Port
	// names the process.
	PID   int
	Since time.Time
}

// List returns the rows of cfg.Table in cfg.DB, by ID. It reads the whole
// table, so a table that Baidu's Java assigner has filled for years is a
// long answer.
//
// It fails with an error wrapping uidgen.ErrConfig (as NewDisposable does)
// before sending anything, or as EnsureSchema refuses a table of another
// shape, naming the columns that differ, and otherwise as LeaseWorkerID
// does (ctx.Err(), uidgen.ErrUnreachable, uidgen.ErrAccessDenied,
// uidgen.ErrNoTable, ErrNoLeaseColumns for a table of Baidu's shape without
// them), with the operation named "list the rows of".
func List(ctx context.Context, cfg Config) ([]Row, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	db, d, table := c.DB, c.d, c.Table
	op := "list the rows of " + table
	// Only a table of Baidu's shape is told to add the lease columns it
	// lacks; a missing one is the SELECT's to report, as uidgen.ErrNoTable.
	have, err := d.Columns(ctx, db, table)
	if err != nil {
		return nil, fail(ctx, d, op, err)
	}
	if len(have) > 0 {
		if _, err := c.compare(have); err != nil {
			return nil, err
		}
	}
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
		r, err := scanRow(rows)
		if err != nil {
			return nil, fail(ctx, d, op, err)
		}
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fail(ctx, d, op, err)
	}
	return list, nil
}

// scanRow reads List's row: a disposable one holds no lease and no
// reservation, whatever its columns say.
func scanRow(rows *sql.Rows) (Row, error) {
	var r Row
	var leftMillis, aheadSeconds int64
	if err := rows.Scan(&r.ID, &r.Leased, &r.Type, &r.Host, &r.Port, &leftMillis, &r.Reserved, &aheadSeconds); err != nil {
		return Row{}, err
	}
	if !r.Leased {
		r.Reserved = 0
		return r, nil
	}
	r.Held = leftMillis > 0
	if r.Held {
		r.LeaseLeft = time.Duration(leftMillis) * time.Millisecond
	}
	r.ReservedAhead = time.Duration(max(aheadSeconds, 0)) * time.Second
	return r, nil
}
