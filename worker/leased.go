package worker

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dialect"
)

// The lease TTL's default and limits. Below a second the renewer, which
// renews every third of it, would race the round trip to the database; above
// an hour a dead holder keeps its ID from the fleet for longer than any
// deployment waits.
const (
	DefaultLeaseTTL = 30 * time.Second
	MinLeaseTTL     = time.Second
	MaxLeaseTTL     = time.Hour
)

// The lease horizon's default and limits. Managed failovers take one to two
// minutes, and a primary restarting after a crash can take longer: ten
// minutes rides out both. Past a day, a crash keeps its ID hot for longer
// than a fleet should go without a database anyway.
const (
	DefaultLeaseHorizon = 10 * time.Minute
	MinLeaseHorizon     = time.Second
	MaxLeaseHorizon     = 24 * time.Hour
)

// coldSlack is how far ahead of the database's clock a free ID's
// reservation may run and still count as cold. A clean release records the
// last second its generator used, and a cached generator's ring holds a few
// seconds ahead of the clock even at idle (8 with the defaults): its ID
// should come back at once, to a holder that starts a few seconds ahead,
// rather than count as left by a crash.
const coldSlack = 10

// freePoll is how often LeaseWorkerID looks again when every ID is held: a
// released ID is free at once, an abandoned one after its TTL.
const freePoll = time.Second

// retryDelay bounds the wait between renewals while the database fails, so
// that the reservation grows again soon after it answers.
const retryDelay = time.Second

// Leased is a uidgen.Leaser: it lends each process a worker ID from the
// worker table for as long as the process renews it, and takes it back on
// Release or when the lease expires, so that the next process to lease may
// use it again. The package doc proves that two holders of one ID never use
// the same second.
//
// A lease takes the lowest free ID: the lowest leased row whose lease has
// expired by the database's clock, or, where there is none, a new row with
// the lowest ID the table does not use. A fleet of N processes therefore
// holds IDs near 1..N, and worker bits need only count the processes alive at
// once. Disposable rows, Baidu's Java assigner's and this package's, are
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
	ttl    time.Duration
	ahead  time.Duration // the horizon and a third of the TTL: what a renewal reserves, at pace
	logger *slog.Logger  // nil: quiet
	host   host

	// Replaced by tests. now sizes reservations and names the day in
	// LAUNCH_DATE; it never decides whether a lease has expired.
	now   func() time.Time
	poll  time.Duration // freePoll
	every time.Duration // between renewals: a third of ttl
}

// NewLeased returns a Leased that keeps its leases in cfg.Table of cfg.DB, a
// table with the lease columns (EnsureSchema adds them). It sends nothing
// yet. It fails, with an error that names the value, as NewDisposable does,
// on a LeaseTTL outside [MinLeaseTTL, MaxLeaseTTL] (ErrLeaseTTL) and on a
// LeaseHorizon outside [MinLeaseHorizon, MaxLeaseHorizon] (ErrLeaseHorizon).
func NewLeased(cfg Config) (*Leased, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if c.LeaseTTL < MinLeaseTTL || c.LeaseTTL > MaxLeaseTTL {
		return nil, fmt.Errorf("worker: %w: %v, want %v to %v", ErrLeaseTTL, c.LeaseTTL, MinLeaseTTL, MaxLeaseTTL)
	}
	if c.LeaseHorizon < MinLeaseHorizon || c.LeaseHorizon > MaxLeaseHorizon {
		return nil, fmt.Errorf("worker: %w: %v, want %v to %v", ErrLeaseHorizon, c.LeaseHorizon, MinLeaseHorizon, MaxLeaseHorizon)
	}
	// A renewal lands at most a third of the TTL after the last one, so
	// reserving that much past the horizon keeps a whole horizon reserved
	// at the instant the database stops answering.
	return &Leased{db: c.DB, d: c.d, table: c.Table, ttl: c.LeaseTTL, ahead: c.LeaseHorizon + c.LeaseTTL/3, logger: c.Logger,
		host: systemHost(c.LookupEnv), now: time.Now, poll: freePoll, every: c.LeaseTTL / 3}, nil
}

var _ uidgen.Leaser = (*Leased)(nil)

// AssignWorkerID refuses, with an error wrapping ErrNotReserving: an ID
// handed out without its reservation could repeat the seconds of its last
// holder. A generator that knows leases calls LeaseWorkerID instead.
func (l *Leased) AssignWorkerID(ctx context.Context) (int64, error) {
	return 0, fmt.Errorf("worker: assign from %s: %w: lease one with LeaseWorkerID (uidgen.Leaser)", l.table, ErrNotReserving)
}

// LeaseWorkerID leases the lowest free worker ID in [1, maxWorkerID] and
// starts the goroutine that renews it, which runs until Release.
//
// When every ID up to maxWorkerID is held it looks again every second until
// one comes free or ctx ends; then it fails with an error wrapping
// ErrNoFreeID and ctx.Err() that says how many IDs are held. Give ctx a
// deadline. It fails with ErrMaxWorkerID for a maxWorkerID below 1, and
// otherwise as Disposable.AssignWorkerID does, or with ErrNoLeaseColumns
// where the table lacks the lease columns.
func (l *Leased) LeaseWorkerID(ctx context.Context, maxWorkerID int64) (uidgen.Lease, error) {
	if maxWorkerID < 1 {
		return nil, fmt.Errorf("worker: lease a worker ID from %s: %w: %d, want 1 or more", l.table, ErrMaxWorkerID, maxWorkerID)
	}
	n, err := l.host.describe(l.now())
	if err != nil {
		return nil, fmt.Errorf("worker: describe this process: %w", err)
	}
	op := "lease a worker ID from " + l.table
	var held *heldIDs // once every ID was found held
	failed := func(err error) error {
		if held != nil && ctx.Err() != nil {
			return fmt.Errorf("worker: %s: %w: all %d IDs from 1 to %d are held (%d leased, %d disposable) and none came free: %w",
				op, ErrNoFreeID, maxWorkerID, maxWorkerID, maxWorkerID-held.disposable, held.disposable, ctx.Err())
		}
		return fail(ctx, l.d, op, err)
	}
	for {
		now := l.now() // a lease waited for starts from the time it is taken
		s, again, full, err := l.leaseOnce(ctx, n, now, maxWorkerID)
		switch {
		case err != nil:
			return nil, failed(err)
		case s != nil:
			l.started(ctx, s, n)
			return s, nil
		case again:
			continue // another process took the ID first
		}
		held = &full
		select {
		case <-ctx.Done():
			return nil, failed(ctx.Err())
		case <-time.After(l.poll):
		}
	}
}

// leaseOnce leases a free ID up to maxID, if there is one: a free ID whose
// reservation has passed first, lowest first, then a new row, which has
// none: both start at the clock. Only when every free ID is still reserved
// ahead, by a holder that died, the one whose reservation ends soonest: it
// starts above that reservation. It returns again when another process took
// the ID it chose first, and what holds the IDs when none is free.
func (l *Leased) leaseOnce(ctx context.Context, n node, now time.Time, maxID int64) (s *lease, again bool, full heldIDs, err error) {
	if s, found, err := l.take(ctx, n, now, maxID, true); err != nil || s != nil || found {
		return s, found, full, err
	}
	s, full, err = l.insert(ctx, n, now, maxID)
	if l.d.Kind(err) == dialect.DupKey {
		return nil, true, full, nil
	}
	if err != nil || s != nil {
		return s, false, full, err
	}
	s, again, err = l.take(ctx, n, now, maxID, false)
	return s, again, full, err
}

// take takes over a leased row up to maxID whose lease has expired and
// returns its lease: with cold, the lowest whose reservation has passed by
// the database's clock or passes within coldSlack, as a clean release's
// does; otherwise the one whose reservation ends soonest. It returns nil and
// found when another process took that row first, and nil alone when no row
// is free. The update succeeds only if RESERVED_UNTIL still holds the value
// read, so the lease starts above the reservation as it stood at the
// takeover: which row is chosen changes nothing of that.
func (l *Leased) take(ctx context.Context, n node, now time.Time, maxID int64, cold bool) (s *lease, found bool, err error) {
	var id, dbNow int64
	var reserved sql.NullInt64
	which := " ORDER BY RESERVED_UNTIL, ID LIMIT 1"
	if cold {
		which = " AND (RESERVED_UNTIL IS NULL OR RESERVED_UNTIL <= " + l.d.NowSeconds() + " + " + strconv.Itoa(coldSlack) + ") ORDER BY ID LIMIT 1"
	}
	err = l.db.QueryRowContext(ctx, l.d.Rebind(
		"SELECT ID, RESERVED_UNTIL, "+l.d.NowSeconds()+" FROM "+l.table+
			" WHERE LEASED = 1 AND ID BETWEEN 1 AND ? AND LEASE_UNTIL <= "+l.d.NowMillis()+which), maxID).
		Scan(&id, &reserved, &dbNow)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	start := dbNow
	if reserved.Valid {
		start = max(dbNow, reserved.Int64+1)
	}
	s = l.newLease(id, start, now)
	took, err := l.d.Exec(ctx, l.db,
		"UPDATE "+l.table+" SET OWNER = ?, LEASE_UNTIL = "+l.d.NowMillis()+" + ?, RESERVED_UNTIL = ?,"+
			" HOST_NAME = ?, PORT = ?, TYPE = ?, LAUNCH_DATE = ?, MODIFIED = NOW()"+
			" WHERE ID = ? AND LEASED = 1 AND LEASE_UNTIL <= "+l.d.NowMillis()+" AND "+l.d.NullSafeEqual("RESERVED_UNTIL", "?"),
		s.token, l.ttl.Milliseconds(), s.Reserved(), n.host, n.port, int(n.typ), now.Format(time.DateOnly),
		id, reserved)
	if err != nil || took == 0 {
		return nil, true, err
	}
	return s, true, nil
}

// heldIDs counts the rows that hold the IDs up to a full table's maximum.
type heldIDs struct{ disposable int64 }

// insert leases a new row with the lowest ID the table does not use. It
// returns nil and what holds the IDs when that ID is above maxID, and the
// driver's duplicate-key error when another process inserted it first.
func (l *Leased) insert(ctx context.Context, n node, now time.Time, maxID int64) (*lease, heldIDs, error) {
	var id, dbNow int64
	var full heldIDs
	// The lowest unused ID is 1, or one above a used ID whose successor is
	// unused. Only IDs up to maxID matter, which bounds the scan.
	err := l.db.QueryRowContext(ctx, l.d.Rebind(
		"SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM "+l.table+" WHERE ID = 1) THEN 1"+
			" ELSE (SELECT MIN(a.ID) + 1 FROM "+l.table+" a WHERE a.ID BETWEEN 1 AND ?"+
			" AND NOT EXISTS (SELECT 1 FROM "+l.table+" b WHERE b.ID = a.ID + 1)) END,"+
			" "+l.d.NowSeconds()+", (SELECT COUNT(*) FROM "+l.table+" WHERE ID BETWEEN 1 AND ? AND LEASED = 0)"),
		maxID, maxID).Scan(&id, &dbNow, &full.disposable)
	if err != nil {
		return nil, full, err
	}
	if id > maxID {
		return nil, full, nil
	}
	s := l.newLease(id, dbNow, now)
	_, err = l.db.ExecContext(ctx, l.d.Rebind(
		"INSERT INTO "+l.table+" (ID, HOST_NAME, PORT, TYPE, LAUNCH_DATE, MODIFIED, CREATED, LEASED, OWNER, LEASE_UNTIL, RESERVED_UNTIL)"+
			" VALUES (?, ?, ?, ?, ?, NOW(), NOW(), 1, ?, "+l.d.NowMillis()+" + ?, ?)"),
		id, n.host, n.port, int(n.typ), now.Format(time.DateOnly), s.token, l.ttl.Milliseconds(), s.Reserved())
	if err != nil {
		return nil, full, err
	}
	return s, full, nil
}

// newLease returns the lease of worker ID id from second start, with a fresh
// token and a first reservation of the horizon and a third of the TTL ahead
// of start or now, whichever is later. Its renewer is not yet running.
func (l *Leased) newLease(id, start int64, now time.Time) *lease {
	s := &lease{l: l, id: id, token: rand.Text(), start: start, leasedAt: now, wake: make(chan struct{}, 1),
		changed: make(chan struct{}), done: make(chan struct{})}
	lead := seconds(l.ahead)
	s.reserved.Store(max(start, now.Unix()) + lead)
	s.need.Store(start - 1)
	s.wakeAt.Store(s.reserved.Load() - lead/2)
	return s
}

// started logs s and starts its renewer.
func (l *Leased) started(ctx context.Context, s *lease, n node) {
	if l.logger != nil {
		l.logger.InfoContext(ctx, "worker: leased worker ID", "id", s.id, "table", l.table,
			"start", s.start, "reserved", s.Reserved(), "type", n.typ, "host", n.host, "port", n.port)
	}
	ctx, s.stop = context.WithCancel(context.Background())
	go s.renew(ctx)
}

// seconds returns d in whole seconds, rounded up.
func seconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// lease is the uidgen.Lease of one worker ID. A lease must not be copied.
type lease struct {
	l     *Leased
	id    int64
	token string // the random OWNER that only this holder knows
	start int64

	leasedAt time.Time // by the client's clock: the renewer's first pace counts from it

	// renewedAfter is how long after leasedAt the last renewal that
	// succeeded was sent (0 for the lease itself): the row's LEASE_UNTIL is
	// at least one TTL past that instant. Written only by the renewer; read
	// by Expires.
	renewedAfter atomic.Int64

	// reserved is the last second this holder may use. Written only by the
	// renewer, and only after an update naming token has changed the row
	// and left RESERVED_UNTIL at or above the stored value; it never
	// decreases, so the row always reserves at least this much for this
	// holder. Read by anyone.
	reserved atomic.Int64

	// need is the highest second passed to Need or Wait, raised by holders
	// with a CAS loop; the renewer reserves ahead of it.
	need atomic.Int64

	// wakeAt is written by the renewer after each renewal: halfway through
	// what it reserved ahead. Need wakes the renewer once need reaches it,
	// so the next chunk is reserved before the holder runs out.
	wakeAt atomic.Int64

	wake chan struct{} // capacity 1: at most one wake-up waits

	stop context.CancelFunc // ends the renewer; set before it starts
	done chan struct{}      // closed when the renewer has returned

	// mu guards what Wait and Err read of the renewer's outcomes.
	mu       sync.Mutex
	changed  chan struct{} // closed and replaced after every renewal and at Release
	attempts int64         // renewals finished
	lastErr  error         // the last renewal's failure, unprefixed; nil after a success
	lost     error         // non-nil, wrapping uidgen.ErrLeaseLost, once the row went to another holder
	released bool

	releaseOnce sync.Once
	releaseErr  error
}

func (s *lease) WorkerID() int64 { return s.id }
func (s *lease) Start() int64    { return s.start }
func (s *lease) Reserved() int64 { return s.reserved.Load() }

// Expires returns when the lease lapses unless renewed, by this process's
// clock: one TTL after the last successful renewal was sent. The database
// counts its TTL from when the statement arrived, later, so this errs early.
func (s *lease) Expires() time.Time {
	return s.leasedAt.Add(time.Duration(s.renewedAfter.Load()) + s.l.ttl)
}

// Need raises need to sec and wakes the renewer when sec has used up half
// of the reservation ahead. The send never blocks: a wake-up already waiting
// serves.
func (s *lease) Need(sec int64) {
	for {
		n := s.need.Load()
		if sec <= n || s.need.CompareAndSwap(n, sec) {
			break
		}
	}
	if sec >= s.wakeAt.Load() {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

func (s *lease) Wait(ctx context.Context, sec int64) error {
	s.mu.Lock()
	seen := s.attempts
	s.mu.Unlock()
	for {
		// changed is read before reserved: a renewal stores reserved
		// before it closes changed, so either the store is seen or the
		// close wakes this wait.
		s.mu.Lock()
		changed, attempts, lastErr, lost, released := s.changed, s.attempts, s.lastErr, s.lost, s.released
		s.mu.Unlock()
		reserved := s.Reserved()
		switch {
		case reserved >= sec:
			return nil
		case lost != nil:
			return fmt.Errorf("worker: second %d is beyond the reservation, which ends at %d: %w", sec, reserved, lost)
		case released:
			return fmt.Errorf("worker: second %d on worker ID %d: %w", sec, s.id, ErrReleased)
		case attempts > seen && lastErr != nil:
			return fmt.Errorf("worker: the reservation of worker ID %d ends at second %d, before %d, and renewing it failed: %w",
				s.id, reserved, sec, lastErr)
		}
		s.Need(sec)
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("worker: wait for second %d on worker ID %d, reserved to %d: %w", sec, s.id, reserved, ctx.Err())
		}
	}
}

// RenewalErr returns why the last renewal failed, nil after one that
// succeeded: a generator that runs out of reserved seconds says it.
func (s *lease) RenewalErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

func (s *lease) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost != nil {
		return fmt.Errorf("worker: %w", s.lost)
	}
	return nil
}

// renew extends the lease every third of the TTL, and sooner when Need
// wakes it, until the lease is lost or Release stops it. Each renewal is one
// statement that extends the lease and reserves ahead of need the seconds
// of the horizon and a third of the TTL at the pace need grew since the last
// renewal (measured over a third of the TTL at least), and at least that
// much wall time: so a holder borrowing seconds flat out finds them
// reserved before it asks, a holder cut off from the database goes on for
// the horizon, and a holder that dies leaves its ID reserved about a
// horizon ahead at its pace.
func (s *lease) renew(ctx context.Context) {
	defer close(s.done)
	interval := s.l.every
	timer := time.NewTimer(interval)
	defer timer.Stop()
	lastAt, lastNeed := s.leasedAt, s.start-1
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-s.wake:
		}
		now, need := s.l.now(), s.need.Load()
		lead := seconds(s.l.ahead)
		// The pace is measured over a third of the TTL at least: a holder
		// that asks for many seconds at once (a cached generator filling its
		// ring at start-up, within milliseconds) has not shown a pace, and
		// over a shorter span it would reserve hours ahead.
		if dt := max(now.Sub(lastAt), s.l.ttl/3).Seconds(); dt > 0 {
			lead = max(lead, int64(math.Ceil(float64(need-lastNeed)/dt*s.l.ahead.Seconds())))
		}
		lastAt, lastNeed = now, need
		target := max(need, now.Unix()) + lead

		err := s.extend(ctx, target, s.l.ttl/3)
		if ctx.Err() != nil {
			return // Release stopped the renewer mid-statement
		}
		if err == nil {
			s.wakeAt.Store(target - lead/2)
		}
		s.record(err)
		if errors.Is(err, uidgen.ErrLeaseLost) {
			return
		}
		if logger := s.l.logger; logger != nil && failing != (err != nil) {
			if err != nil {
				logger.Warn("worker: renewing a lease failed; retrying", "id", s.id, "table", s.l.table,
					"reserved", s.Reserved(), "error", err)
			} else {
				logger.Info("worker: renewing a lease works again", "id", s.id, "table", s.l.table, "reserved", s.Reserved())
			}
		}
		failing = err != nil
		next := interval
		if err != nil {
			next = min(interval, retryDelay)
		}
		timer.Reset(next)
	}
}

// extend extends the lease by a TTL from the database's now and the
// reservation to target, under timeout. The
// update names the token, so it changes nothing once another holder took
// the row; it always changes a row it matches, since LEASE_UNTIL grows by
// at least a millisecond, so zero rows affected means the lease is lost
// whether or not the DSN counts found rows.
func (s *lease) extend(ctx context.Context, target int64, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sent := s.l.now()
	n, err := s.l.d.Exec(ctx, s.l.db,
		"UPDATE "+s.l.table+" SET LEASE_UNTIL = GREATEST(LEASE_UNTIL + 1, "+s.l.d.NowMillis()+" + ?),"+
			" RESERVED_UNTIL = GREATEST(RESERVED_UNTIL, ?) WHERE ID = ? AND OWNER = ?",
		s.l.ttl.Milliseconds(), target, s.id, s.token)
	if err != nil {
		return fmt.Errorf("extend the lease of worker ID %d in %s: %w", s.id, s.l.table, cause(ctx, s.l.d, err))
	}
	if n == 0 {
		return fmt.Errorf("%w: worker ID %d in %s went to another holder; this one keeps the seconds to %d",
			uidgen.ErrLeaseLost, s.id, s.l.table, s.Reserved())
	}
	if target > s.Reserved() {
		s.reserved.Store(target)
	}
	s.renewedAfter.Store(int64(sent.Sub(s.leasedAt)))
	return nil
}

// record publishes a renewal's outcome to Wait and Err.
func (s *lease) record(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts++
	s.lastErr = err
	if errors.Is(err, uidgen.ErrLeaseLost) {
		s.lost = err
		if s.l.logger != nil {
			s.l.logger.Warn("worker: lease lost", "id", s.id, "table", s.l.table, "reserved", s.Reserved())
		}
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// Release stops the renewer, waits for it, and then frees the row in one
// update that names the token: OWNER NULL, so no statement of this holder
// still on its way to the server can extend the row again; LEASE_UNTIL the
// database's now, so the ID is free at once; RESERVED_UNTIL lastUsed, but
// never below Start()-1, which is at or above every second the earlier
// holders reserved. A lease already lost gives nothing back and returns an
// error wrapping uidgen.ErrLeaseLost.
func (s *lease) Release(ctx context.Context, lastUsed int64) error {
	s.releaseOnce.Do(func() {
		s.stop()
		<-s.done
		s.mu.Lock()
		lost := s.lost
		s.released = true
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		if lost != nil {
			s.releaseErr = fmt.Errorf("worker: release worker ID %d: %w", s.id, lost)
			return
		}
		op := fmt.Sprintf("release worker ID %d in %s", s.id, s.l.table)
		n, err := s.l.d.Exec(ctx, s.l.db,
			"UPDATE "+s.l.table+" SET OWNER = NULL, LEASE_UNTIL = "+s.l.d.NowMillis()+", RESERVED_UNTIL = ?, MODIFIED = NOW()"+
				" WHERE ID = ? AND OWNER = ?",
			max(lastUsed, s.start-1), s.id, s.token)
		switch {
		case err != nil:
			s.releaseErr = fail(ctx, s.l.d, op, err)
		case n == 0:
			s.releaseErr = fmt.Errorf("worker: %s: %w: another holder took it first", op, uidgen.ErrLeaseLost)
		case s.l.logger != nil:
			s.l.logger.InfoContext(ctx, "worker: released worker ID", "id", s.id, "table", s.l.table, "lastUsed", lastUsed)
		}
	})
	return s.releaseErr
}
