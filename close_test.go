package uidgen_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/memleasetest"
)

// TestCloseTwice: every generator's Close behaves alike. The first call
// gives the lease back, and every call, concurrent or later, returns what
// the first returned; NextID then fails with ErrClosed.
func TestCloseTwice(t *testing.T) {
	type generator interface {
		NextID() (int64, error)
		Close() error
	}
	errRelease := errors.New("release refused")
	now := time.Now().Unix()
	tests := []struct {
		name string
		open func(ctx context.Context, l uidgen.Leaser) (generator, error)
	}{
		{"cached", func(ctx context.Context, l uidgen.Leaser) (generator, error) {
			return cached.New(ctx, cached.Config{Leaser: l})
		}},
		{"defaultgen", func(ctx context.Context, l uidgen.Leaser) (generator, error) {
			return defaultgen.New(ctx, defaultgen.Config{Leaser: l})
		}},
	}
	for _, tt := range tests {
		for _, releaseErr := range []error{nil, errRelease} {
			t.Run(tt.name, func(t *testing.T) {
				leaser := &memleasetest.Leaser{ID: 3, First: now, Reserved: now + 3600, ReleaseErr: releaseErr}
				g, err := tt.open(t.Context(), leaser)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := g.NextID(); err != nil {
					t.Fatal(err)
				}
				errs := make([]error, 4)
				var wg sync.WaitGroup
				for i := range errs {
					wg.Go(func() { errs[i] = g.Close() })
				}
				wg.Wait()
				errs = append(errs, g.Close())
				for i, err := range errs {
					if !errors.Is(err, releaseErr) || (err == nil) != (releaseErr == nil) || err != nil && err.Error() != errs[0].Error() {
						t.Fatalf("Close #%d = %v, want what the first returned, %v, wrapping %v", i+1, err, errs[0], releaseErr)
					}
				}
				if lease, _ := leaser.Lease(); lease == nil {
					t.Fatal("no lease taken")
				} else if _, ok := lease.Released(); !ok {
					t.Fatal("Close did not give the lease back")
				}
				if _, err := g.NextID(); !errors.Is(err, uidgen.ErrClosed) {
					t.Fatalf("NextID after Close = %v, want ErrClosed", err)
				}
			})
		}
	}
}
