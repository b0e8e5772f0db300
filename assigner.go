package uidgen

import (
	"context"
	"fmt"
)

// Assigner hands out the worker ID of this process: the middle field of
// every UID, unique to one running process across the whole fleet.
//
// A generator calls AssignWorkerID once, in New, which must honour ctx's
// deadline and cancellation. The ID must not be in use by any other process
// generating IDs with the same layout; the generator checks that it fits the
// layout. Package worker has the database assigners.
type Assigner interface {
	AssignWorkerID(ctx context.Context) (int64, error)
}

// Static returns an Assigner that always assigns id: the embedded default
// for tests and for a single process that owns its ID space. A fleet must
// not give two processes the same static ID. A generator refuses an id below
// 0 or above its layout's maximum (ErrWorkerIDRange).
func Static(id int64) Assigner { return static(id) }

type static int64

func (s static) AssignWorkerID(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("static worker ID %d: %w", int64(s), err)
	}
	return int64(s), nil
}
