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

// Retry is how a key-value store's LeaseWorkerID tries again.
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
}

// Acquire calls once until it returns a lease, waiting Poll after each try
// that failed or found every ID held (ErrFull), and going again at once
// after one that returned neither lease nor error: another process took
// the chosen ID first. When ctx ends it fails with an error wrapping
// NoFreeID and ctx.Err(), naming the range, if the last read of the fleet
// found every ID in [lo, hi] held, else with Unanswered's. Under a ctx
// with no deadline, a range found full for FullFor fails with NoFreeID
// (FullUntil): the caller sees when it will return.
func Acquire[L any](ctx context.Context, r Retry, lo, hi int64, once func(context.Context) (*L, error)) (*L, error) {
	full := false // the last read of the fleet found every ID held
	var fullSince time.Time
	var lastErr error
	for {
		readAt := time.Now()
		lease, err := once(ctx)
		switch {
		case lease != nil:
			return lease, nil
		case r.Fatal(err):
			return nil, err
		case errors.Is(err, ErrFull):
			if !full || fullSince.IsZero() {
				fullSince = readAt
			}
			full, lastErr = true, nil
			if err := FullUntil(ctx, r.NoFreeID, fullSince, readAt, r.FullFor, lo, hi, ""); err != nil {
				return nil, err
			}
		case err != nil:
			// A read cut off by ctx's end says nothing of the fleet, so
			// the last read's finding stands; a failure after a read came
			// after one that found an ID free.
			var u Unread
			full = full && ctx.Err() != nil && errors.As(err, &u)
			// A try cut off by ctx's end says only that ctx ended: the
			// store's own answer before it, if any, says why it failed.
			if !Cut(err) || ctx.Err() == nil || lastErr == nil {
				lastErr = err
			}
			if r.Failed != nil {
				r.Failed(ctx)
			}
		default:
			full, fullSince = false, time.Time{}
			continue
		}
		select {
		case <-ctx.Done():
			if full {
				return nil, fmt.Errorf("%w: all %d IDs from %d to %d are held and none came free: %w",
					r.NoFreeID, hi-lo+1, lo, hi, ctx.Err())
			}
			return nil, r.Unanswered(lastErr, ctx.Err())
		case <-time.After(r.Poll):
		}
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
