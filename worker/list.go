package worker

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// Row is one row of the worker table, as List reads it: a leased ID's
// lease, or a disposable ID, used once, whose lease fields are zero.
type Row struct {
	uidgen.LeaseRow

	// Disposable says the row is a disposable worker ID (Baidu's insert),
	// not a leased one, which comes back.
	Disposable bool

	// Type and Port are Baidu's TYPE and PORT columns: a container's port,
	// an actual host's start token ("millis-random"), or in a SQLite file
	// the process ("pid-4242"), from which LeaseRow.PID is read.
	Type NodeType
	Port string
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
			" COALESCE(RESERVED_UNTIL - "+d.NowSeconds()+", 0), "+d.UnixSeconds("MODIFIED")+
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
// reservation, whatever its columns say. MODIFIED is when a held lease was
// acquired: renewals leave it.
func scanRow(rows *sql.Rows) (Row, error) {
	var r Row
	var leased bool
	var leftMillis, aheadSeconds, modified int64
	if err := rows.Scan(&r.ID, &leased, &r.Type, &r.Host, &r.Port, &leftMillis, &r.Reserved, &aheadSeconds, &modified); err != nil {
		return Row{}, err
	}
	if r.Disposable = !leased; r.Disposable {
		r.Reserved = 0
		return r, nil
	}
	if r.Held = leftMillis > 0; r.Held {
		r.LeaseLeft = time.Duration(leftMillis) * time.Millisecond
		r.Since = time.Unix(modified, 0)
		if pid, ok := strings.CutPrefix(r.Port, "pid-"); ok {
			r.PID, _ = strconv.Atoi(pid)
		}
	}
	r.ReservedAhead = time.Duration(max(aheadSeconds, 0)) * time.Second
	return r, nil
}
