// Package worker hands a generator its worker ID: the middle field of every
// UID, unique to one running process across the whole fleet.
//
// A generator asks its Assigner once, at start-up. Static serves tests and
// single-node services; Disposable (MySQL) gives each process start a fresh
// ID from the AUTO_INCREMENT of a WORKER_NODE row, as Baidu's
// DisposableWorkerIdAssigner does, so two processes never share one and a
// restarted process never reuses its old one.
package worker

import (
	"context"
	"errors"
	"fmt"
)

// Assigner hands out the worker ID of this process.
//
// AssignWorkerID is called once, when a generator is built, and must honour
// ctx's deadline and cancellation. The ID must be non-negative and must not be
// in use by any other process generating IDs in the same space.
type Assigner interface {
	AssignWorkerID(ctx context.Context) (int64, error)
}

// ErrNegativeID is returned by Static's AssignWorkerID for an ID below zero.
var ErrNegativeID = errors.New("worker: negative worker ID")

// Static returns an Assigner that always assigns id. It is the embedded
// default for tests and for a single process that owns its ID space; a fleet
// must not give two processes the same static ID.
//
// A negative id is reported as an error when the ID is assigned, wrapping
// ErrNegativeID.
func Static(id int64) Assigner { return static(id) }

type static int64

func (s static) AssignWorkerID(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("worker: assign static ID: %w", err)
	}
	if s < 0 {
		return 0, fmt.Errorf("%w: %d (must be 0 or more)", ErrNegativeID, int64(s))
	}
	return int64(s), nil
}
