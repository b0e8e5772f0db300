package worker

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dialect"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// freePoll is how often LeaseWorkerID looks again when every ID is held: a
// released ID is free at once, an abandoned one after its TTL.
const freePoll = time.Second

// Leased is a uidgen.Leaser: it lends each process a worker ID from the
// worker table for as long as the process renews it, and takes it back on
// Release or when the lease expires, so that the next process to lease may
// use it again. docs/design.md proves that two holders of one ID never use
// the same second.
//
// A lease takes the lowest free ID: the lowest leased row whose lease has
// expired by the database's clock, or, where there is none, a new row with
// the lowest ID the table does not use. A fleet of N processes therefore
// holds IDs near 1..N, and worker bits need only count the processes alive at
// once. With Config.WorkerIDs all of this happens inside the range: its
// fleet holds IDs near lo..lo+N-1, and no row outside it is ever taken or
// written. Disposable rows, Baidu's Java assigner's and this package's, are
// never leased.
//
// The row describes the holder as Disposable's rows do. Rows of leased IDs
// must not be deleted: a row remembers the seconds its earlier holders may
// have used, and a new row starts from the clock.
//
// A Leased holds no connection of its own and is safe for concurrent use.
type Leased struct {
	db     *sql.DB
	d      *dialect.Dialect
	table  string
	timing leasing.Timing
	ids    uidgen.WorkerIDRange
	logger *slog.Logger // nil: quiet
	host   host

	inspect sync.Once // warnDurability, at the first lease

	// Replaced by tests. now sizes reservations and names the day in
	// LAUNCH_DATE; it never decides whether a lease has expired.
	now     func() time.Time
	poll    time.Duration  // freePoll
	gone    func(int) bool // processGone
	catchUp time.Duration  // maxCatchUp; 0: no wait, for tests of the protocol alone
}

// NewLeased returns a Leased that keeps its leases in cfg.Table of cfg.DB, a
// table with the lease columns (EnsureSchema adds them). It sends nothing
// yet. It fails with an error wrapping uidgen.ErrConfig that names the
// field, the value and the limits on any Config NewDisposable refuses, on a
// LeaseTTL or a LeaseHorizon outside the limits Config gives, and on
// WorkerIDs that start below 1 or are empty.
func NewLeased(cfg Config) (*Leased, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if err := leasing.CheckConfig(c.LeaseTTL, c.LeaseHorizon, leasing.MinTTL, c.WorkerIDs); err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	timing := leasing.NewTiming(c.LeaseTTL, c.LeaseHorizon)
	if c.d == dialect.SQLite {
		timing = leasing.NewFileTiming(c.LeaseTTL, c.LeaseHorizon)
	}
	return &Leased{db: c.DB, d: c.d, table: c.Table, timing: timing, ids: c.WorkerIDs, logger: c.Logger,
		host: systemHost(c.d), now: time.Now, poll: freePoll, gone: processGone, catchUp: maxCatchUp}, nil
}

var _ uidgen.Leaser = (*Leased)(nil)

// LeaseWorkerID leases the lowest free worker ID of Config.WorkerIDs, by
// default [1, maxWorkerID], and starts the goroutine that renews it, which
// runs until Release.
//
// When every ID of the range is held it looks again every second until
// one comes free or ctx ends; then it fails with an error wrapping
// uidgen.ErrNoFreeID and ctx.Err() that names the range and how many IDs are held
// (on a range of up to 3 IDs, each holder). Under a ctx with no deadline
// it waits for one lease TTL, after which every ID a dead holder left has
// expired, and then fails with uidgen.ErrNoFreeID alone. It fails with
// uidgen.ErrConfig for a maxWorkerID below 1 or a range that ends above it,
// before it sends anything, and otherwise as Disposable.AssignWorkerID does,
// or with ErrNoLeaseColumns where the table lacks the lease columns.
//
// On a SQLite file, an ID whose last holder left it used or reserved a
// few seconds ahead (at most 10: a crash, or restarts in a row) comes back
// once the clock is within a second of it: LeaseWorkerID waits for that,
// where the wait leaves a third of ctx's time for the takeover, so that the new holder starts at most a second ahead and
// neither a crash loop nor a loop of short runs pushes its IDs further
// ahead each time.
func (l *Leased) LeaseWorkerID(ctx context.Context, maxWorkerID int64) (uidgen.Lease, error) {
	t, err := l.newTry(ctx, maxWorkerID)
	if err != nil {
		return nil, err
	}
	s, err := leasing.Acquire(ctx, leasing.Retry{
		Poll:       l.poll,
		NoFreeID:   uidgen.ErrNoFreeID,
		FullFor:    l.timing.TTL,
		Fatal:      t.fatal,
		Unanswered: t.unanswered,
		Full:       t.full,
	}, t.lo, t.hi, t.once)
	if err != nil {
		return nil, fmt.Errorf("worker: %s: %w", t.op, err)
	}
	return l.started(ctx, *s, t.n), nil
}

// leaseTry is one LeaseWorkerID call: the range it leases from, and what
// its last pass found, which its errors report.
type leaseTry struct {
	l      *Leased
	ctx    context.Context
	op     string
	n      node
	lo, hi int64
	held   heldIDs // what holds the range, where the last pass found it full
}

// busy is the error of a pass that found a SQLite file locked by another
// process: a process stopped while it writes the file (SIGSTOP, a frozen
// VM) keeps its lock until it runs again or dies, so LeaseWorkerID looks
// again until ctx ends, as for a full range.
type busy struct{ error }

func (b busy) Unwrap() error { return b.error }

// newTry checks maxWorkerID and the range, and describes this process.
func (l *Leased) newTry(ctx context.Context, maxWorkerID int64) (*leaseTry, error) {
	t := &leaseTry{l: l, ctx: ctx, op: "lease a worker ID from " + l.table}
	if err := leasing.CheckMaxWorkerID(maxWorkerID); err != nil {
		return nil, fmt.Errorf("worker: %s: %w", t.op, err)
	}
	var err error
	if t.lo, t.hi, err = l.ids.Bounds(maxWorkerID); err != nil {
		return nil, fmt.Errorf("worker: %s: %w", t.op, err)
	}
	if t.n, err = l.host.describe(l.now()); err != nil {
		return nil, fmt.Errorf("worker: describe this process: %w", err)
	}
	if l.logger != nil && l.host.local {
		l.inspect.Do(func() { l.warnDurability(ctx) })
	}
	return t, nil
}

// once is one pass of leasing.Acquire: a lease, or nil where another
// process took the chosen ID first, a leasing.Later where the ID starts a
// few seconds ahead of the clock, leasing.ErrFull where every ID is held,
// a busy file, or the database's error, explained: as a leasing.Unread
// where ctx has ended, which leaves a full range's finding standing.
func (t *leaseTry) once(ctx context.Context) (*taking, error) {
	l := t.l
	now := l.now() // a lease waited for starts from the time it is taken
	s, again, wait, full, err := l.leaseOnce(ctx, t.n, now, t.lo, t.hi)
	switch {
	case err != nil && l.d.Kind(err) == dialect.Busy:
		return nil, busy{err}
	case err != nil && ctx.Err() != nil:
		return nil, leasing.Unread{Err: cause(ctx, l.d, err)}
	case err != nil:
		return nil, cause(ctx, l.d, err)
	case s != nil || again:
		return s, nil
	case wait > 0:
		if l.logger != nil {
			l.logger.InfoContext(ctx, "worker: waiting for the clock to come within a second of a free ID's first second",
				"table", l.table, "wait", wait)
		}
		return nil, leasing.Later{Wait: wait}
	}
	t.held = full
	return nil, leasing.ErrFull
}

// full expires the leases of holders that are gone from a range the last
// pass found full, and says to look again at once where it expired one;
// otherwise it returns what holds the range, each holder of a small one.
// A look cut off by ctx's end leaves the pass's finding: the range is full.
func (t *leaseTry) full(ctx context.Context) (again bool, held string, err error) {
	l := t.l
	reclaimed, err := l.reclaimGone(ctx, t.n, t.lo, t.hi)
	if err == nil && !reclaimed && t.hi-t.lo < namedHolders {
		t.held.holders, err = l.holders(ctx, t.lo, t.hi)
	}
	switch {
	case err != nil && ctx.Err() == nil:
		return false, "", cause(ctx, l.d, err)
	case reclaimed:
		return true, "", nil
	}
	return false, fmt.Sprintf(" (%d leased, %d disposable%s)", t.hi-t.lo+1-t.held.disposable, t.held.disposable, t.held.holders), nil
}

// fatal says which errors of once end LeaseWorkerID at once: the
// database's, but for a busy file and a pass cut off by ctx's end, which
// Acquire sorts as it does a full range.
func (t *leaseTry) fatal(err error) bool {
	return err != nil && !errors.Is(err, leasing.ErrFull) && !errors.As(err, new(busy)) && !errors.As(err, new(leasing.Unread))
}

// unanswered is the error when ctx ends and the last pass did not find the
// range full: a file another process kept locked, the database's own
// error, or ctx's end.
func (t *leaseTry) unanswered(last, ctxErr error) error {
	var b busy
	switch {
	case errors.As(last, &b):
		return fmt.Errorf("%w: another process held the SQLite file's write lock until the context ended (%w): %v",
			uidgen.ErrUnreachable, ctxErr, b.error)
	case last != nil:
		return last
	}
	return cause(t.ctx, t.l.d, ctxErr)
}

// leaseOnce leases a free ID in [lo, hi], if there is one: a free ID whose
// reservation has passed first, lowest first, then a new row, which has
// none: both start at the clock. Only when every free ID is still reserved
// ahead, by a holder that died, the one whose reservation ends soonest: it
// starts above that reservation. It returns again when another process took
// the ID it chose first, how long to wait before looking again when the ID
// it chose starts a few seconds ahead of the clock (startsAhead), and what
// holds the IDs when none is free.
func (l *Leased) leaseOnce(ctx context.Context, n node, now time.Time, lo, hi int64) (s *taking, again bool, wait time.Duration, full heldIDs, err error) {
	if s, found, wait, err := l.acquire(ctx, n, now, lo, hi, true); err != nil || s != nil || found || wait > 0 {
		return s, found, wait, full, err
	}
	s, full, err = l.insert(ctx, n, now, lo, hi)
	if l.d.Kind(err) == dialect.DupKey {
		return nil, true, 0, full, nil
	}
	if err != nil || s != nil {
		return s, false, 0, full, err
	}
	s, again, wait, err = l.acquire(ctx, n, now, lo, hi, false)
	return s, again, wait, full, err
}

// acquire leases a leased row in [lo, hi] whose lease has expired and
// returns its lease: with cold, the lowest whose reservation has passed by
// the database's clock or passes within leasing.ColdSlack, as a clean
// release's does; otherwise the one whose reservation ends soonest. It
// returns nil and found when another process took that row first, nil and
// a wait where the row's first second is a few seconds ahead of the clock
// (startsAhead), and nil alone when no row is free. The update succeeds
// only if RESERVED_UNTIL still holds the value read, so the lease starts
// above the reservation as it stood at the takeover: which row is chosen
// changes nothing of that.
func (l *Leased) acquire(ctx context.Context, n node, now time.Time, lo, hi int64, cold bool) (s *taking, found bool, wait time.Duration, err error) {
	var id, dbNow int64
	var reserved sql.NullInt64
	which := " ORDER BY RESERVED_UNTIL, ID LIMIT 1"
	if cold {
		which = " AND (RESERVED_UNTIL IS NULL OR RESERVED_UNTIL <= " + l.d.NowSeconds() + " + " + strconv.Itoa(leasing.ColdSlack) + ") ORDER BY ID LIMIT 1"
	}
	err = l.db.QueryRowContext(ctx, l.d.Rebind(
		"SELECT ID, RESERVED_UNTIL, "+l.d.NowSeconds()+" FROM "+l.table+
			" WHERE LEASED = 1 AND ID BETWEEN ? AND ? AND LEASE_UNTIL <= "+l.d.NowMillis()+which), lo, hi).
		Scan(&id, &reserved, &dbNow)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, 0, nil
	}
	if err != nil {
		return nil, false, 0, err
	}
	first := dbNow
	if reserved.Valid {
		first = max(dbNow, reserved.Int64+1)
	}
	if wait := l.startsAhead(ctx, first, now); wait > 0 {
		return nil, false, wait, nil
	}
	t := l.newLease(id, first, now)
	took, err := l.d.Exec(ctx, l.db,
		"UPDATE "+l.table+" SET OWNER = ?, LEASE_UNTIL = "+l.d.NowMillis()+" + ?, RESERVED_UNTIL = ?,"+
			" HOST_NAME = ?, PORT = ?, TYPE = ?, LAUNCH_DATE = ?, MODIFIED = CURRENT_TIMESTAMP"+
			" WHERE ID = ? AND LEASED = 1 AND LEASE_UNTIL <= "+l.d.NowMillis()+" AND "+l.d.NullSafeEqual("RESERVED_UNTIL", "?"),
		t.token, l.timing.TTL.Milliseconds(), t.reserved, n.host, n.port, int(n.typ), now.Format(time.DateOnly),
		id, reserved)
	if err != nil || took == 0 {
		return nil, true, 0, err
	}
	return &t, true, 0, nil
}

// heldIDs counts the rows that hold the IDs of a full range.
type heldIDs struct {
	disposable int64
	holders    string // who holds them, where the range is small enough to say
}

// namedHolders is the largest range whose full-range error names each
// holder: a process pinned to one ID (a range of one) wants to know who
// has it.
const namedHolders = 3

// holders returns, for an error, who holds the leased IDs of [lo, hi]: ";
// worker ID 5 held by pid-4242 on host h since 2026-11-27 10:17:08 UTC".
func (l *Leased) holders(ctx context.Context, lo, hi int64) (string, error) {
	rows, err := l.db.QueryContext(ctx, l.d.Rebind(
		"SELECT ID, HOST_NAME, PORT, "+l.d.UnixSeconds("MODIFIED")+" FROM "+l.table+
			" WHERE LEASED = 1 AND ID BETWEEN ? AND ? ORDER BY ID"), lo, hi)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, since int64
		var host, port string
		if err := rows.Scan(&id, &host, &port, &since); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "; worker ID %d held by %s on host %s since %s", id, port, host,
			time.Unix(since, 0).UTC().Format(time.DateTime+" MST"))
	}
	return b.String(), rows.Err()
}

// reclaimGone expires, on a SQLite file, the leases of [lo, hi] whose row
// names a process of this host that no longer runs, and reports whether
// it expired any. Every holder of a file's ID runs on the file's machine,
// and a process that is gone renews nothing: its ID need not wait out the
// TTL. The update names the holder's token as read, so a lease taken since
// is left alone. Expiring a lease early never gives a second twice: a
// takeover still starts above the row's reservation, and a holder whose
// lease was taken extends nothing (docs/design.md's proof holds for any
// expiry time); a holder wrongly judged gone would lose its lease, never
// share a second.
func (l *Leased) reclaimGone(ctx context.Context, n node, lo, hi int64) (bool, error) {
	if !l.host.local {
		return false, nil
	}
	list, err := l.goneHolders(ctx, n, lo, hi)
	if err != nil {
		return false, err
	}
	reclaimed := false
	for _, g := range list {
		n, err := l.d.Exec(ctx, l.db, "UPDATE "+l.table+" SET LEASE_UNTIL = "+l.d.NowMillis()+" WHERE ID = ? AND OWNER = ?", g.id, g.owner)
		if err != nil {
			return false, err
		}
		if n == 1 {
			reclaimed = true
			if l.logger != nil {
				l.logger.InfoContext(ctx, "worker: expired the lease of a process that is gone", "id", g.id, "table", l.table, "pid", g.pid)
			}
		}
	}
	return reclaimed, nil
}

// goneHolder is a held row of [lo, hi] whose holder, on this machine, is
// gone.
type goneHolder struct {
	id    int64
	owner string
	pid   int
}

// goneHolders returns the held rows of [lo, hi] that name a process of
// this host, n's, that is gone.
func (l *Leased) goneHolders(ctx context.Context, n node, lo, hi int64) ([]goneHolder, error) {
	rows, err := l.db.QueryContext(ctx, "SELECT ID, OWNER, PORT FROM "+l.table+
		" WHERE LEASED = 1 AND ID BETWEEN ? AND ? AND HOST_NAME = ? AND OWNER IS NOT NULL AND LEASE_UNTIL > "+l.d.NowMillis(), lo, hi, n.host)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []goneHolder
	for rows.Next() {
		var g goneHolder
		var port string
		if err := rows.Scan(&g.id, &g.owner, &port); err != nil {
			return nil, err
		}
		if pid, ok := portProcess(port); ok && l.gone(pid) {
			g.pid = pid
			list = append(list, g)
		}
	}
	return list, rows.Err()
}

// insert leases a new row with the lowest ID from lo the table does not
// use. It returns nil and what holds the IDs when that ID is above hi, and
// the driver's duplicate-key error when another process inserted it first.
func (l *Leased) insert(ctx context.Context, n node, now time.Time, lo, hi int64) (*taking, heldIDs, error) {
	var id sql.NullInt64
	var dbNow int64
	var full heldIDs
	// The lowest unused ID is lo, or one above a used ID in [lo, hi] whose
	// successor is unused; none when every ID from lo to hi+1 is used (rows
	// above hi: another fleet's range, Java's rows). Only IDs in [lo, hi]
	// matter, which bounds the scan.
	err := l.db.QueryRowContext(ctx, l.d.Rebind(
		"SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM "+l.table+" WHERE ID = ?) THEN ?"+
			" ELSE (SELECT MIN(a.ID) + 1 FROM "+l.table+" a WHERE a.ID BETWEEN ? AND ?"+
			" AND NOT EXISTS (SELECT 1 FROM "+l.table+" b WHERE b.ID = a.ID + 1)) END,"+
			" "+l.d.NowSeconds()+", (SELECT COUNT(*) FROM "+l.table+" WHERE ID BETWEEN ? AND ? AND LEASED = 0)"),
		lo, lo, lo, hi, lo, hi).Scan(&id, &dbNow, &full.disposable)
	if err != nil {
		return nil, full, err
	}
	if !id.Valid || id.Int64 > hi {
		return nil, full, nil
	}
	t := l.newLease(id.Int64, dbNow, now)
	_, err = l.db.ExecContext(ctx, l.d.Rebind(
		"INSERT INTO "+l.table+" (ID, HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED, LEASED, OWNER, LEASE_UNTIL, RESERVED_UNTIL)"+
			" VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 1, ?, "+l.d.NowMillis()+" + ?, ?)"),
		id.Int64, n.host, n.port, int(n.typ), now.Format(time.DateOnly), t.token, l.timing.TTL.Milliseconds(), t.reserved)
	if err != nil {
		return nil, full, err
	}
	return &t, full, nil
}

// taking is a lease being taken: what the statement that takes it writes.
type taking struct {
	id       int64
	token    string    // the random OWNER that only this holder knows
	first    int64     // the first Unix second the holder may use
	reserved int64     // the last Unix second reserved
	leasedAt time.Time // by the client's clock: the renewer's first pace counts from it
}

// maxCatchUp is the furthest ahead of the clock that a lease's first
// second, on a SQLite file, makes LeaseWorkerID wait for (startsAhead). A holder that no load
// pushed ahead leaves a few seconds: the tick after the clock's and the
// file timing's 3 s ahead if it crashed, that tick if it closed. One
// that borrowed further was pushed there by load, and the next starts
// above it rather than wait.
const maxCatchUp = 10 * time.Second

// startsAhead returns how long to wait before taking a lease of a SQLite
// file whose first second is first, by the clock at now: until the clock
// is within a second of it, where first is at most l.catchUp ahead and
// the wait leaves a third of ctx's time, and at least minTakeover, for the
// takeover; zero, to take it at once, otherwise. A holder then
// starts at most a second ahead of the clock, whatever its ID's last
// holder left, so neither restarts in a row nor a crash loop pushes its
// IDs further ahead each time. The wait comes before the takeover, which
// writes a reservation: a process killed while it waits leaves the row as
// it found it. Only a file's holders can wait this cheaply: they share the
// machine's clock with the one before, and a server store's crashed holder
// left a horizon that a restart should not wait out.
func (l *Leased) startsAhead(ctx context.Context, first int64, now time.Time) time.Duration {
	wait := time.Unix(first-1, 0).Sub(now)
	if !l.host.local || wait <= 0 || wait > l.catchUp {
		return 0
	}
	if deadline, ok := ctx.Deadline(); ok {
		left := deadline.Sub(now)
		if left-wait < max(left/3, minTakeover) {
			return 0 // a wait that would leave the takeover too little of ctx: start ahead rather than fail
		}
	}
	return wait
}

// minTakeover is the least of ctx's time that startsAhead leaves for the
// takeover after a wait: on a file that other holders write, under load,
// the update can wait a second or more for the write lock, and another
// holder that waited for the same ID can take it first.
const minTakeover = 2 * time.Second

// newLease returns the lease of worker ID id whose holder may use Unix
// seconds from first on, with a fresh token and a first reservation of the
// horizon and a third of the TTL ahead of first or now, whichever is later.
func (l *Leased) newLease(id, first int64, now time.Time) taking {
	return taking{id: id, token: rand.Text(), first: first, reserved: leasing.FirstReservation(first, now, l.timing.Ahead), leasedAt: now}
}

// started logs t, a lease the table now holds, and starts its renewer.
func (l *Leased) started(ctx context.Context, t taking, n node) *lease {
	if l.logger != nil {
		l.logger.InfoContext(ctx, "worker: leased worker ID", "id", t.id, "table", l.table,
			"first", t.first, "reserved", t.reserved, "type", n.typ, "host", n.host, "port", n.port)
	}
	store := &rowStore{l: l, id: t.id, token: t.token}
	return &lease{leasing.Start(leasing.Params{Pkg: "worker", Where: l.table, ID: t.id, First: t.first,
		LeasedAt: t.leasedAt, Reserved: t.reserved, Timing: l.timing,
		Now: l.now, Logger: l.logger, Released: uidgen.ErrReleased}, store), store}
}

// lease is the uidgen.Lease of one worker ID, kept in its row.
type lease struct {
	*leasing.Lease
	store *rowStore
}

// rowStore is the leasing.Store of one leased row: its updates name the
// holder's token.
type rowStore struct {
	l     *Leased
	id    int64
	token string
}

// Extend extends the lease by a TTL from the database's now and the
// reservation to target. The update names the token, so it changes nothing
// once another holder took the row; it always changes a row it matches,
// since LEASE_UNTIL grows by at least a millisecond, so zero rows affected
// means the lease is lost whether or not the DSN counts found rows.
func (s *rowStore) Extend(ctx context.Context, target int64) error {
	n, err := s.l.d.Exec(ctx, s.l.db,
		"UPDATE "+s.l.table+" SET LEASE_UNTIL = "+s.l.d.Greatest("LEASE_UNTIL + 1", s.l.d.NowMillis()+" + ?")+","+
			" RESERVED_UNTIL = "+s.l.d.Greatest("RESERVED_UNTIL", "?")+" WHERE ID = ? AND OWNER = ?",
		s.l.timing.TTL.Milliseconds(), target, s.id, s.token)
	if err != nil {
		return fmt.Errorf("extend the lease of worker ID %d in %s: %w", s.id, s.l.table, cause(ctx, s.l.d, err))
	}
	if n == 0 {
		return fmt.Errorf("%w: worker ID %d in %s went to another holder", uidgen.ErrLeaseLost, s.id, s.l.table)
	}
	return nil
}

// Free frees the row in one update that names the token: OWNER NULL, so no
// statement of this holder still on its way to the server can extend the
// row again; LEASE_UNTIL the database's now, so the ID is free at once;
// RESERVED_UNTIL lastUsed.
func (s *rowStore) Free(ctx context.Context, lastUsed int64) error {
	op := fmt.Sprintf("release worker ID %d in %s", s.id, s.l.table)
	n, err := s.l.d.Exec(ctx, s.l.db,
		"UPDATE "+s.l.table+" SET OWNER = NULL, LEASE_UNTIL = "+s.l.d.NowMillis()+", RESERVED_UNTIL = ?, MODIFIED = CURRENT_TIMESTAMP"+
			" WHERE ID = ? AND OWNER = ?",
		lastUsed, s.id, s.token)
	switch {
	case err != nil:
		return fail(ctx, s.l.d, op, err)
	case n == 0:
		return fmt.Errorf("worker: %s: %w: another holder took it first", op, uidgen.ErrLeaseLost)
	}
	return nil
}
