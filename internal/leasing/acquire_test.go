package leasing

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

var (
	errNoFree = errors.New("no free ID")
	errBadKey = errors.New("bad key")
	errDown   = errors.New("connection refused")
)

// try is one answer of a scripted store: a lease, or an error, or neither
// (another process took the ID first).
type try struct {
	lease *int
	err   error
}

// acquireScripted runs Acquire against a store that answers tries in turn, the
// last one for ever, and cancels ctx once every scripted try was made.
func acquireScripted(t *testing.T, tries ...try) (lease *int, failed int, err error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	calls := 0
	r := Retry{
		Poll:     time.Millisecond,
		NoFreeID: errNoFree,
		Fatal:    func(err error) bool { return errors.Is(err, errBadKey) },
		Failed:   func(context.Context) { failed++ },
		Unanswered: func(last, ctxErr error) error {
			if Cut(last) {
				return ctxErr
			}
			return errors.Join(last, ctxErr)
		},
	}
	lease, err = Acquire(ctx, r, 5, 7, func(context.Context) (*int, error) {
		a := tries[min(calls, len(tries)-1)]
		calls++
		if calls >= len(tries) {
			cancel()
		}
		return a.lease, a.err
	})
	return lease, failed, err
}

func TestAcquire(t *testing.T) {
	one := new(int)
	t.Run("raced, then leased", func(t *testing.T) {
		lease, failed, err := acquireScripted(t, try{}, try{}, try{lease: one})
		if lease != one || err != nil || failed != 0 {
			t.Errorf("Acquire = %v, %v after %d failures; want the lease at the third try, no failure", lease, err, failed)
		}
	})
	t.Run("a bad key at once", func(t *testing.T) {
		_, _, err := acquireScripted(t, try{err: errBadKey}, try{lease: one})
		if !errors.Is(err, errBadKey) {
			t.Errorf("Acquire = %v, want %v with no second try", err, errBadKey)
		}
	})
	t.Run("full until the end", func(t *testing.T) {
		_, _, err := acquireScripted(t, try{err: ErrFull}, try{err: ErrFull})
		if !errors.Is(err, errNoFree) || !errors.Is(err, context.Canceled) ||
			!strings.Contains(err.Error(), "all 3 IDs from 5 to 7 are held") {
			t.Errorf("Acquire = %v, want %v and %v, naming the range 5 to 7", err, errNoFree, context.Canceled)
		}
	})
	t.Run("full, then a read cut off", func(t *testing.T) {
		// A read that fails as ctx ends says nothing of the fleet: the
		// last finding, every ID held, stands.
		_, failed, err := acquireScripted(t, try{err: ErrFull}, try{err: Unread{context.Canceled}})
		if !errors.Is(err, errNoFree) || failed != 1 {
			t.Errorf("Acquire = %v after %d failures, want %v after 1", err, failed, errNoFree)
		}
	})
	t.Run("full, then a take failed", func(t *testing.T) {
		// A take comes after a read that found an ID free.
		_, _, err := acquireScripted(t, try{err: ErrFull}, try{err: errDown})
		if errors.Is(err, errNoFree) || !errors.Is(err, errDown) {
			t.Errorf("Acquire = %v, want %v and not %v", err, errDown, errNoFree)
		}
	})
	t.Run("down, then cut off", func(t *testing.T) {
		// The try that ctx's end cut off says nothing the one before it
		// did not: the store's answer is the error.
		_, _, err := acquireScripted(t, try{err: errDown}, try{err: context.Canceled})
		if !errors.Is(err, errDown) {
			t.Errorf("Acquire = %v, want the store's %v", err, errDown)
		}
	})
	t.Run("full, then raced", func(t *testing.T) {
		_, _, err := acquireScripted(t, try{err: ErrFull}, try{}, try{err: Unread{context.Canceled}})
		if errors.Is(err, errNoFree) || !errors.Is(err, context.Canceled) {
			t.Errorf("Acquire = %v, want %v and not %v: a read found an ID free", err, context.Canceled, errNoFree)
		}
	})
	t.Run("later", func(t *testing.T) {
		// A Later is neither a failure nor a full range: it is waited
		// out, and the next try leases.
		lease, failed, err := acquireScripted(t, try{err: ErrFull}, try{err: Later{Wait: time.Millisecond}}, try{lease: one})
		if lease != one || err != nil || failed != 0 {
			t.Errorf("Acquire = %v, %v after %d failures; want the lease after the wait, no failure", lease, err, failed)
		}
	})
}

// TestAcquireFull: Retry.Full runs after each try that found the range
// full: where it frees an ID the next try comes at once, however long the
// Poll; what it says holds the range is in the error when ctx ends; its
// error ends Acquire.
func TestAcquireFull(t *testing.T) {
	hookErr := errors.New("the full hook failed")
	// acquire runs Acquire on a range found full by every try but the
	// one a freed ID makes, under a Poll that outlives ctx.
	acquire := func(t *testing.T, again bool, held string, err error) (*int, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		one, freed := new(int), false
		r := Retry{
			Poll: time.Hour, NoFreeID: errNoFree,
			Fatal:      func(error) bool { return false },
			Unanswered: func(_, ctxErr error) error { return ctxErr },
			Full: func(context.Context) (bool, string, error) {
				freed = again
				return again, held, err
			},
		}
		return Acquire(ctx, r, 1, 1, func(context.Context) (*int, error) {
			if freed {
				return one, nil
			}
			return nil, ErrFull
		})
	}
	if lease, err := acquire(t, true, "", nil); lease == nil || err != nil {
		t.Errorf("Acquire after Full freed an ID = %v, %v; want the lease at once", lease, err)
	}
	if _, err := acquire(t, false, " (by pid 42)", nil); !errors.Is(err, errNoFree) || !strings.Contains(err.Error(), "are held (by pid 42) and none came free") {
		t.Errorf("Acquire of a range Full says pid 42 holds = %v, want %v naming pid 42", err, errNoFree)
	}
	if _, err := acquire(t, false, "", hookErr); !errors.Is(err, hookErr) {
		t.Errorf("Acquire whose Full fails = %v, want %v", err, hookErr)
	}
}
