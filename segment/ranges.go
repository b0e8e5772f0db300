package segment

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/defaults"
	"github.com/seed4d941b13/uidgen/internal/dialect"
	"github.com/seed4d941b13/uidgen/padding"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// span is the range of numbers [start, end).
type span struct{ start, end int64 }

func (s span) len() int64 { return s.end - s.start }

// Retry delays: how soon the padder asks again while a claim is on its
// way, and while claims fail; and the longest wait between failing claims.
// A claim without an answer for unanswered counts as the database being
// unreachable, as a failed one does: a server that is paused or cut off by
// a partition does not refuse the connection. It is half a take's default
// wait, so that a take that gives up after that wait says so.
const (
	claimWait  = time.Millisecond
	failedWait = 50 * time.Millisecond
	maxBackoff = time.Second
	unanswered = defaults.RingWait / 2
	stopGrace  = time.Second
	// giveBackTimeout bounds Close's give-back: with the database down,
	// Close returns within stopGrace and this, and the numbers are lost.
	giveBackTimeout = 2 * time.Second
)

// errClaiming is why the padder holds while the next range is on its way.
var errClaiming = errors.New("waiting for the next range from the database")

// ranges is the padding.Source of a Generator: it hands the padder the
// numbers of the range in hand, and has a claimer goroutine claim the next
// range once the numbers not yet handed out fall to half a range.
type ranges struct {
	c        config
	db       *sql.DB
	table    string
	returned string // the table of numbers given back: table + "_returned"
	tag      string
	ring     *ringbuffer.Ring

	mu       sync.Mutex // guards what follows; the padder and the claimer share it
	cur      span       // the range in hand, from its first number not yet put
	spare    *span      // claimed and not yet in hand
	claiming bool       // the claimer is claiming
	claimAt  time.Time  // when Next last asked the claimer for a range
	claimErr error      // the last claim's failure, nil after a success
	fatal    error      // wrapping ErrTagGone: claiming has stopped for good
	size     int64      // the last claim's size
	// runEnd is max_id as this generator's last claim of new numbers left
	// it: Close gives back the unused numbers that end there by moving
	// max_id down to them, if it is still runEnd. high is the end of the
	// highest range this generator took, new or given back: it takes only
	// ranges above it, so that its numbers increase. Both are written by
	// start and the claimer only, under mu once the claimer runs.
	runEnd, high int64
	// noReturned says the table of numbers given back is missing (a table
	// made before it, or by Leaf): claims take only new numbers, and Close
	// loses what it cannot give back through max_id. Written by start and
	// the claimer only; Close reads it after the claimer stopped.
	noReturned bool
	reused     int64 // ranges taken from the table of numbers given back
	// lastAt and lastCursor are when the last claim was made and the
	// ring's cursor then, to size the next claim by the rate since.
	lastAt       time.Time
	lastCursor   int64
	claims       int64
	claimsFailed int64

	wake chan struct{} // to the claimer; capacity 1
	quit chan struct{} // closed by stop: the claimer claims no more
	// ctx ends when stop has waited stopGrace for a claim on its way: the
	// claim is abandoned then. Its range, if the database took the claim,
	// is lost, never repeated: Close's give-back names the max_id of the
	// last claim known.
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the claimer returns
}

// start prepares the tag's row, claims the first range and starts the
// claimer.
func start(ctx context.Context, c config, ring *ringbuffer.Ring) (*ranges, error) {
	r := &ranges{c: c, db: c.DB, table: c.Table, returned: returnedTable(c.Table), tag: c.Tag, ring: ring,
		wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	step, err := r.prepare(ctx)
	if err != nil {
		return nil, err
	}
	if step > c.MaxStep {
		return nil, fmt.Errorf("%w: MaxStep %d%s is below tag %q's step %d: want MaxStep at least the tag's step", uidgen.ErrConfig,
			c.MaxStep, theDefault(c.Config.MaxStep == 0), c.Tag, step)
	}
	r.c.Step = step
	r.lastAt, r.lastCursor = c.Clock.Now(), -1
	first, fresh, err := r.obtain(ctx, step)
	if err != nil {
		return nil, err
	}
	r.took(first, step, fresh)
	r.cur = first
	r.ctx, r.cancel = context.WithCancel(context.Background())
	go r.claimer()
	return r, nil
}

// prepare makes sure the tag's row exists, creating it where c.create
// says, at or above Start, and returns its step.
func (r *ranges) prepare(ctx context.Context) (int64, error) {
	d := r.c.d
	for {
		var maxID, step int64
		err := r.db.QueryRowContext(ctx, d.Rebind("SELECT max_id, step FROM "+r.table+" WHERE biz_tag = ?"), r.tag).
			Scan(&maxID, &step)
		switch {
		case errors.Is(err, sql.ErrNoRows) && !r.c.create:
			return 0, fmt.Errorf("%w: %q is not in %s", ErrNoTag, r.tag, r.table)
		case errors.Is(err, sql.ErrNoRows):
			start := max(r.c.Start, 1)
			_, err := r.db.ExecContext(ctx, d.Rebind("INSERT INTO "+r.table+
				" (biz_tag, max_id, step, description, update_time) VALUES (?, ?, ?, ?, "+"CURRENT_TIMESTAMP)"),
				r.tag, start, r.c.Step, r.c.Description)
			if d.Kind(err) == dialect.DupKey {
				continue // another process created it first
			}
			if err != nil {
				return 0, fmt.Errorf("create tag %q in %s: %w", r.tag, r.table, cause(ctx, d, err))
			}
			r.log(ctx, "segment: created tag", "start", start, "step", r.c.Step)
			return r.c.Step, nil
		case err != nil:
			return 0, fmt.Errorf("read tag %q from %s: %w", r.tag, r.table, cause(ctx, d, err))
		case r.c.Start <= maxID:
			return step, nil // the tag is at or above Start already
		}
		// Start is above max_id: move max_id up to it, unless a claim
		// moved it meanwhile, in which case look again.
		n, err := d.Exec(ctx, r.db, "UPDATE "+r.table+" SET max_id = ?, update_time = CURRENT_TIMESTAMP"+
			" WHERE biz_tag = ? AND max_id = ?", r.c.Start, r.tag, maxID)
		if err != nil {
			return 0, fmt.Errorf("move tag %q in %s up to %d: %w", r.tag, r.table, r.c.Start, cause(ctx, d, err))
		}
		if n == 1 {
			return step, nil
		}
	}
}

// obtain returns the next range: the lowest range of numbers given back
// above this generator's, where there is one, and otherwise size new
// numbers claimed from max_id (fresh).
func (r *ranges) obtain(ctx context.Context, size int64) (s span, fresh bool, err error) {
	if !r.noReturned {
		s, ok, err := r.reuse(ctx)
		switch {
		case errors.Is(err, uidgen.ErrNoTable):
			r.noReturned = true
		case err != nil:
			return span{}, false, err
		case ok:
			return s, false, nil
		}
	}
	s, err = r.claim(ctx, size)
	return s, true, err
}

// reuseTries bounds the rows reuse reads that another process takes first,
// before it leaves the rest to the next claim.
const reuseTries = 3

// reuse takes the lowest range of the tag's numbers given back that starts
// at or above high and Start, in one DELETE that only one process can make affect
// the row. It returns false when there is none, or when other processes
// took every one it read.
func (r *ranges) reuse(ctx context.Context) (span, bool, error) {
	d := r.c.d
	for range reuseTries {
		var s span
		err := r.db.QueryRowContext(ctx, d.Rebind("SELECT start_id, end_id FROM "+r.returned+
			" WHERE biz_tag = ? AND start_id >= ? ORDER BY start_id LIMIT 1"), r.tag, max(r.high, r.c.Start)).Scan(&s.start, &s.end)
		if errors.Is(err, sql.ErrNoRows) {
			return span{}, false, nil
		}
		if err == nil {
			var n int64
			n, err = d.Exec(ctx, r.db, "DELETE FROM "+r.returned+" WHERE biz_tag = ? AND start_id = ? AND end_id = ?",
				r.tag, s.start, s.end)
			if err == nil && n == 1 {
				r.reused++
				return s, true, nil
			}
		}
		if err != nil {
			return span{}, false, fmt.Errorf("take numbers of tag %q given back to %s: %w", r.tag, r.returned, cause(ctx, d, err))
		}
	}
	return span{}, false, nil
}

// claim claims size numbers in one statement and returns them.
func (r *ranges) claim(ctx context.Context, size int64) (span, error) {
	d := r.c.d
	var end int64
	var err error
	if d.Returning() {
		err = r.db.QueryRowContext(ctx, d.Rebind("UPDATE "+r.table+" SET max_id = max_id + ?, update_time = CURRENT_TIMESTAMP"+
			" WHERE biz_tag = ? RETURNING max_id"), size, r.tag).Scan(&end)
	} else {
		// LAST_INSERT_ID(expr) sets the value the OK packet carries back,
		// so the new max_id comes with the update, from the same row lock.
		var res sql.Result
		res, err = r.db.ExecContext(ctx, "UPDATE "+r.table+" SET max_id = LAST_INSERT_ID(max_id + ?), update_time = CURRENT_TIMESTAMP"+
			" WHERE biz_tag = ?", size, r.tag)
		var n int64
		if err == nil {
			n, err = res.RowsAffected()
		}
		if err == nil && n == 0 {
			err = sql.ErrNoRows
		}
		if err == nil {
			end, err = res.LastInsertId()
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		return span{}, fmt.Errorf("claim %d numbers of tag %q in %s: %w", size, r.tag, r.table, ErrTagGone)
	}
	if err != nil {
		return span{}, fmt.Errorf("claim %d numbers of tag %q in %s: %w", size, r.tag, r.table, cause(ctx, d, err))
	}
	return span{end - size, end}, nil
}

// took records the range s, obtained for a claim of size numbers: fresh
// from max_id, or given back. The caller holds mu, or is start.
func (r *ranges) took(s span, size int64, fresh bool) {
	if fresh {
		r.runEnd = s.end
	}
	r.high = s.end
	r.size = size
	r.claims++
	r.claimErr = nil
	r.log(context.Background(), "segment: claimed", "start", s.start, "end", s.end)
}

// nextSize returns the size of the next claim: the numbers handed out
// since the last claim, at their rate, over ClaimEvery, between the tag's
// step and MaxStep. The caller holds mu.
func (r *ranges) nextSize(now time.Time, cursor int64) int64 {
	used := float64(cursor - r.lastCursor)
	dt := max(now.Sub(r.lastAt), time.Millisecond).Seconds()
	want := math.Ceil(used / dt * r.c.ClaimEvery.Seconds())
	if want >= float64(r.c.MaxStep) {
		return r.c.MaxStep
	}
	return max(int64(want), r.c.Step)
}

// Next hands the padder up to room numbers of the range in hand, taking
// the spare range when that one is used up, and asks the claimer for the
// next range once fewer than half a range are left to hand out.
func (r *ranges) Next(room int) (ringbuffer.Run, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur.len() == 0 && r.spare != nil {
		r.cur, r.spare = *r.spare, nil
	}
	waiting := int64(r.c.ringSize - r.ring.Free())
	if r.spare == nil && !r.claiming && r.cur.len()+waiting <= r.size/2 {
		r.claiming, r.claimAt = true, time.Now()
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
	if r.cur.len() == 0 {
		switch age := time.Since(r.claimAt); {
		case r.fatal != nil:
			return ringbuffer.Run{}, r.fatal // the executor seals the ring with it
		case r.claimErr != nil:
			return ringbuffer.Run{}, &padding.Pause{Retry: failedWait, Why: r.claimErr}
		case !r.claiming:
			// The ring still holds over half a range: nothing to put
			// until a take wakes the padder again.
			return ringbuffer.Run{}, nil
		case age >= unanswered:
			return ringbuffer.Run{}, &padding.Pause{Retry: failedWait,
				Why: fmt.Errorf("%w: a claim of the next range has had no answer for %v", uidgen.ErrUnreachable, age.Round(time.Millisecond))}
		default:
			// Ask again soon, and less often the longer the claim takes.
			return ringbuffer.Run{}, &padding.Pause{Retry: min(max(claimWait, age/10), failedWait), Why: errClaiming}
		}
	}
	run := ringbuffer.Run{First: r.cur.start, Step: 1, N: int(min(int64(room), r.cur.len()))}
	r.cur.start += int64(run.N)
	return run, nil
}

// claimer claims a range each time Next asks, until stop or until the tag
// is gone.
func (r *ranges) claimer() {
	defer close(r.done)
	for {
		select {
		case <-r.quit:
			return
		case <-r.wake:
		}
		if !r.claimNext() {
			return
		}
	}
}

// claimNext claims the next range and hands it to Next, retrying a failing
// claim with a growing delay. It returns false when claiming stops: at
// stop, or once the tag is gone.
func (r *ranges) claimNext() bool {
	for delay := failedWait; ; delay = min(2*delay, maxBackoff) {
		now, cursor, size := r.sizeNext()
		ctx, cancel := context.WithTimeout(r.ctx, claimTimeout)
		s, fresh, err := r.obtain(ctx, size)
		cancel()
		if r.ctx.Err() != nil {
			return false
		}
		switch err = r.judge(s, err); {
		case err == nil:
			r.landed(s, size, fresh, now, cursor)
			return true
		case errors.Is(err, ErrTagGone):
			r.setFatal(err)
			if r.c.Logger != nil {
				r.c.Logger.Error("segment: claiming stopped", "tag", r.tag, "table", r.table, "error", err)
			}
			return false
		}
		r.setFailed(err)
		if r.c.Logger != nil {
			r.c.Logger.Warn("segment: claim failed; retrying", "tag", r.tag, "table", r.table, "in", delay, "error", err)
		}
		select {
		case <-r.quit:
			return false
		case <-time.After(delay):
		}
	}
}

// sizeNext returns the time and the ring's cursor the next claim is sized
// at, and its size.
func (r *ranges) sizeNext() (now time.Time, cursor, size int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now, cursor = r.c.Clock.Now(), r.ring.Stats().Taken-1
	return now, cursor, r.nextSize(now, cursor)
}

// judge returns the error a claim of s counts as: err, said as the
// generator says it, or ErrTagGone for a range below what this generator
// took before (the row was deleted or moved back: max_id never falls below
// a range a process holds, given back or not, see docs/design.md). Only
// the claimer writes high once start has returned, so it reads it without
// mu.
func (r *ranges) judge(s span, err error) error {
	if err == nil && s.start < r.high {
		return fmt.Errorf("%w: claimed [%d, %d) of tag %q in %s, below the %d this generator took up to",
			ErrTagGone, s.start, s.end, r.tag, r.table, r.high)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// The claim's own timeout: a server that does not answer.
		return fmt.Errorf("%w: no answer in %v: %w", uidgen.ErrUnreachable, claimTimeout, err)
	}
	return err
}

// landed records the range s, sized at now and cursor, as the spare range
// Next takes next.
func (r *ranges) landed(s span, size int64, fresh bool, now time.Time, cursor int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.took(s, size, fresh)
	r.lastAt, r.lastCursor = now, cursor
	r.spare, r.claiming = &s, false
}

// setFailed records a failed claim, for Next to say and Stats to count.
func (r *ranges) setFailed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.claimErr = err
	r.claimsFailed++
}

// setFatal stops claiming for good: Next seals the ring with err once what
// is in hand is handed out.
func (r *ranges) setFatal(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fatal, r.claiming = err, false
}

// stop ends the claimer and waits for it. A claim on its way gets
// stopGrace to finish, so that its range is known and can be given back;
// then it is abandoned, so that Close waits no longer for a database that
// does not answer.
func (r *ranges) stop() {
	close(r.quit)
	select {
	case <-r.done:
	case <-time.After(stopGrace):
		r.cancel()
		<-r.done
	}
	r.cancel()
}

// giveBack gives back the numbers the generator took and never handed out:
// drained, the runs Close took from the sealed ring, and what was never put
// in it. The run that ends at runEnd goes back by moving max_id down to its
// start, when no other process has claimed since; every other run, and
// that one when max_id moved, goes to the table of numbers given back, for
// a later claim to hand out. Where that table is missing, they are lost,
// never repeated. The padder and the claimer have stopped.
func (r *ranges) giveBack(drained []span) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	unused := append(drained, r.cur)
	if r.spare != nil {
		unused = append(unused, *r.spare)
	}
	ctx, cancel := context.WithTimeout(context.Background(), giveBackTimeout)
	defer cancel()
	var errs []error
	for _, s := range merge(unused) {
		if err := r.giveBackRun(ctx, s); err != nil {
			errs = append(errs, fmt.Errorf("give back [%d, %d) of tag %q: %w", s.start, s.end, r.tag, err))
		}
	}
	return errors.Join(errs...)
}

// giveBackRun gives back the run s: through max_id where s ends there,
// else to the table of numbers given back.
func (r *ranges) giveBackRun(ctx context.Context, s span) error {
	d := r.c.d
	if s.end == r.runEnd {
		n, err := d.Exec(ctx, r.db, "UPDATE "+r.table+" SET max_id = ?, update_time = CURRENT_TIMESTAMP"+
			" WHERE biz_tag = ? AND max_id = ?", s.start, r.tag, r.runEnd)
		if err != nil {
			return fmt.Errorf("in %s: %w", r.table, cause(ctx, d, err))
		}
		if n == 1 {
			r.log(ctx, "segment: gave back through max_id", "from", s.start, "to", s.end)
			return nil
		}
	}
	if r.noReturned {
		r.log(ctx, "segment: numbers lost: no table of numbers given back", "from", s.start, "to", s.end)
		return nil
	}
	_, err := r.db.ExecContext(ctx, d.Rebind("INSERT INTO "+r.returned+" (biz_tag, start_id, end_id) VALUES (?, ?, ?)"),
		r.tag, s.start, s.end)
	if d.Kind(err) == dialect.NoTable {
		r.log(ctx, "segment: numbers lost: no table of numbers given back", "from", s.start, "to", s.end)
		return nil
	}
	if err != nil {
		return fmt.Errorf("to %s: %w", r.returned, cause(ctx, d, err))
	}
	r.log(ctx, "segment: gave back to "+r.returned, "from", s.start, "to", s.end)
	return nil
}

// merge returns the non-empty spans of spans, sorted, with the ones that
// touch joined.
func merge(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var out []span
	for _, s := range spans {
		switch {
		case s.len() <= 0:
		case len(out) > 0 && out[len(out)-1].end == s.start:
			out[len(out)-1].end = s.end
		default:
			out = append(out, s)
		}
	}
	return out
}

// log logs msg at level Debug when there is a logger.
func (r *ranges) log(ctx context.Context, msg string, args ...any) {
	if r.c.Logger != nil {
		r.c.Logger.DebugContext(ctx, msg, append([]any{"tag", r.tag, "table", r.table}, args...)...)
	}
}

// stats returns the claims' part of Stats.
func (r *ranges) stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	pending := r.cur.len()
	if r.spare != nil {
		pending += r.spare.len()
	}
	return Stats{Claims: r.claims, ClaimsFailed: r.claimsFailed, ClaimSize: r.size, Pending: pending, LastClaim: r.lastAt,
		Reused: r.reused}
}
