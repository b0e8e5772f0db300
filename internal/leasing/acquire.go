package leasing

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrFull is what a store's single try at a lease returns when Choose
// found every ID of the range held.
var ErrFull = errors.New("every worker ID is held")

// Unread wraps the error of a read of the fleet, which therefore says
// nothing of which IDs are held.
type Unread struct{ Err error }

func (u Unread) Error() string { return u.Err.Error() }
func (u Unread) Unwrap() error { return u.Err }

// Retry is how a store's LeaseWorkerID tries again: what it waits, what
// ends it, and the hooks for what is the store's own.
type Retry struct {
	// Poll is how long it waits after a try that failed or found every ID
	// held.
	Poll time.Duration

	// NoFreeID is wrapped by the error when ctx ends and the last read of
	// the fleet found every ID held, or, under a ctx with no deadline,
	// when the fleet was found full for FullFor.
	NoFreeID error

	// FullFor is how long Acquire waits for a full range under a ctx with no
	// deadline: the lease TTL, after which every ID a dead holder left has
	// expired, so that what stays held is held by live processes, which
	// may never let go.
	FullFor time.Duration

	// Fatal reports an error no retry makes right (a key the store's
	// package did not write); Acquire returns it at once.
	Fatal func(error) bool

	// Failed, if not nil, runs after each try that failed.
	Failed func(ctx context.Context)

	// Unanswered returns the error when ctx ends for any other reason: last
	// is the last try's error, nil when the last try found every ID held
	// before a later one was cut off.
	Unanswered func(last, ctxErr error) error

	// Full, if not nil, runs after each try that found every ID held. It
	// returns again where it freed an ID (a holder that is gone), to look
	// again at once, and otherwise what holds the range, for the errors:
	// " (3 leased, 1 disposable)". An error it returns, Acquire returns.
	Full func(ctx context.Context) (again bool, held string, err error)
}

// Later is what a try returns when it found an ID to lease but not yet:
// Acquire tries again after Wait, with nothing else changed.
type Later struct{ Wait time.Duration }

func (l Later) Error() string { return fmt.Sprintf("an ID comes free in %v", l.Wait) }

// Acquire calls once until it returns a lease, waiting Poll after each try
// that failed or found every ID held (ErrFull), a Later's Wait after one
// that returned a Later, and going again at once after one that returned
// neither lease nor error: another process took the chosen ID first. When
// ctx ends it fails with an error wrapping NoFreeID and ctx.Err(), naming
// the range, if the last read of the fleet found every ID in [lo, hi]
// held, else with Unanswered's. Under a ctx with no deadline, a range
// found full for FullFor fails with NoFreeID (FullUntil): the caller sees
// when it will return.
func Acquire[L any](ctx context.Context, r Retry, lo, hi int64, once func(context.Context) (*L, error)) (*L, error) {
	a := acquiring{r: r, lo: lo, hi: hi}
	for {
		readAt := time.Now()
		lease, err := once(ctx)
		var later Later
		wait := r.Poll
		switch {
		case lease != nil:
			return lease, nil
		case errors.As(err, &later):
			wait = later.Wait
		case r.Fatal(err):
			return nil, err
		case errors.Is(err, ErrFull):
			again, err := a.fullAt(ctx, readAt)
			if err != nil {
				return nil, err
			}
			if again {
				continue
			}
		case err != nil:
			a.failed(ctx, err)
		default:
			a.full, a.fullSince = false, time.Time{}
			continue
		}
		select {
		case <-ctx.Done():
			if a.full {
				return nil, fmt.Errorf("%w: all %d IDs from %d to %d are held%s and none came free: %w",
					r.NoFreeID, hi-lo+1, lo, hi, a.held, ctx.Err())
			}
			return nil, r.Unanswered(a.lastErr, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// acquiring is what one Acquire call's tries found.
type acquiring struct {
	r         Retry
	lo, hi    int64
	full      bool      // the last read of the fleet found every ID held
	fullSince time.Time // when the first of the reads in a row that found it full began
	held      string    // what holds the full range, as Full says
	lastErr   error
}

// fullAt notes a try, whose read began at readAt, that found every ID
// held, and returns whether to look again at once, or the error of a range
// full for FullFor.
func (a *acquiring) fullAt(ctx context.Context, readAt time.Time) (again bool, err error) {
	if !a.full || a.fullSince.IsZero() {
		a.fullSince = readAt
	}
	a.full, a.lastErr = true, nil
	if a.r.Full != nil {
		if again, a.held, err = a.r.Full(ctx); err != nil || again {
			return again, err
		}
	}
	return false, FullUntil(ctx, a.r.NoFreeID, a.fullSince, readAt, a.r.FullFor, a.lo, a.hi, a.held)
}

// failed notes a try that failed with err.
func (a *acquiring) failed(ctx context.Context, err error) {
	// A read cut off by ctx's end says nothing of the fleet, so the last
	// read's finding stands; a failure after a read came after one that
	// found an ID free.
	var u Unread
	a.full = a.full && ctx.Err() != nil && errors.As(err, &u)
	// A try cut off by ctx's end says only that ctx ended: the store's own
	// answer before it, if any, says why it failed.
	if !Cut(err) || ctx.Err() == nil || a.lastErr == nil {
		a.lastErr = err
	}
	if a.r.Failed != nil {
		a.r.Failed(ctx)
	}
}

// FullUntil returns the error of a range found full by every read since
// the one that started at since, under a ctx with no deadline, once the
// last, which started at last, started fullFor after since: a lease of
// that TTL that had not expired by since and was not renewed had by last,
// so what that read found held, live processes hold. The error wraps noFreeID and names the range, what
// holds it (held, "" or a parenthesis) and the wait. It returns nil while
// the wait goes on, and always where ctx has a deadline: the caller set its
// own.
func FullUntil(ctx context.Context, noFreeID error, since, last time.Time, fullFor time.Duration, lo, hi int64, held string) error {
	if _, ok := ctx.Deadline(); ok || fullFor <= 0 || last.Sub(since) < fullFor {
		return nil
	}
	return fmt.Errorf("%w: all %d IDs from %d to %d are held%s and none came free within the lease TTL (%v), "+
		"so their holders run; give a context with a deadline to wait longer", noFreeID, hi-lo+1, lo, hi, held, fullFor)
}

// Cut reports whether err says only that a context ended: a store that
// gives no other answer before then did not answer at all.
func Cut(err error) bool {
	return err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
