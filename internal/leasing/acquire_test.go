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

func TestTake(t *testing.T) {
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
}
