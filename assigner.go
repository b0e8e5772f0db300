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

// Static returns an Assigner that always assigns id, and remembers
// nothing. It suits tests, and a process whose IDs never outlive it.
//
// It does not keep IDs unique across a restart. A cached generator borrows
// future ticks when takes outrun its layout's sequence (the default layout
// makes 8,192 IDs a second without borrowing), and a run with a static ID
// that borrowed ahead, restarted before the clock caught up, repeats IDs
// of the run before; so does a restart within one tick, in any generator.
// Where IDs outlive the process, lease the ID instead: from a SQLite file
// on the machine (worker.NewLeased on a *sql.DB of modernc.org/sqlite), or
// from a server shared by the fleet. A lease remembers the time each run
// may have used, and a restart starts above it.
//
// A fleet must not give two processes the same static ID. A generator
// refuses an id below 0 or above its layout's maximum (ErrWorkerIDRange).
func Static(id int64) Assigner { return static(id) }

type static int64

func (s static) AssignWorkerID(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("static worker ID %d: %w", int64(s), err)
	}
	return int64(s), nil
}
