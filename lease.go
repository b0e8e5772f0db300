package uidgen

import (
	"context"
	"time"
)

// Leaser lends worker IDs that come back: a worker ID is lent to one
// process at a time and returned when it is done, so worker bits are
// sized to the most processes alive at once rather than to every start a
// fleet will ever make.
//
// Lending an ID again is safe only if the new holder never uses a second an
// earlier holder may have used, and a generator that borrows future seconds
// may have used seconds ahead of the clock. So a Lease carries, besides the
// ID, the seconds reserved for it: the holder uses a second only once the
// lease has reserved it, and a new holder starts above every second reserved
// for the ones before. Package worker's Leased keeps leases in the
// WORKER_NODE table. Pass one as a generator's Config.Leaser, in place of
// an Assigner.
type Leaser interface {
	// LeaseWorkerID takes a worker ID in [1, maxWorkerID] for this process
	// and starts renewing it in the background until Release. It honours
	// ctx's deadline and cancellation, also while it waits for an ID to
	// come free.
	LeaseWorkerID(ctx context.Context, maxWorkerID int64) (Lease, error)
}

// Lease is a worker ID lent to one generator, with the seconds reserved for
// it. Every second a Lease takes or returns is a Unix second (seconds since
// 1970 UTC), whatever the layout's epoch; a generator converts its own
// delta seconds. A Lease is safe for concurrent use.
//
// The holder uses second s only if First() <= s <= Reserved(): it calls Need
// for each second it is about to use, so that the reservation runs ahead of
// it, and Wait when s lies beyond Reserved().
type Lease interface {
	// WorkerID returns the ID lent.
	WorkerID() int64

	// First returns the first Unix second this holder may use: above
	// every second an earlier holder of the ID may have used.
	First() int64

	// Reserved returns the last Unix second this holder may use now,
	// inclusive. It never decreases, and it stops growing once the lease
	// is lost or released. It is an atomic load.
	Reserved() int64

	// Need tells the lease that the holder is about to use Unix second s,
	// so the renewer reserves ahead of it at the pace seconds are asked
	// for. It never blocks and does no I/O itself.
	Need(s int64)

	// Wait blocks until Reserved() >= s, a Unix second, and returns nil.
	// It fails with an error wrapping ctx.Err() when ctx ends first, one
	// wrapping ErrLeaseLost when the lease is lost, and one naming the
	// database's error when a renewal that could have reserved s failed.
	Wait(ctx context.Context, s int64) error

	// Err returns nil while the lease is held, and an error wrapping
	// ErrLeaseLost once a renewal found that another process took it over.
	Err() error

	// Expires returns when the lease lapses unless renewed, by this
	// process's clock, for Stats: the zero time where the store does not
	// say. It does no I/O.
	Expires() time.Time

	// Release stops the renewer and gives the ID back, recording lastUsed,
	// the last Unix second the holder used (First()-1 for none): it
	// promises it used nothing above it. The ID is free for the next
	// holder at once, whose First() is above lastUsed. Release is
	// idempotent: later calls return the first one's result.
	Release(ctx context.Context, lastUsed int64) error
}

// LeaseStats is what a generator's Stats say of its leased worker ID.
type LeaseStats struct {
	// Leased says the worker ID came from a Leaser (held now, or lost);
	// without a lease every field is zero.
	Leased bool

	// Lost says another process took the lease over: the generator hands
	// out what was reserved, then fails with ErrLeaseLost.
	Lost bool

	// Expires is when the lease lapses unless renewed, by this process's
	// clock (Lease.Expires); zero where the Lease does not say.
	Expires time.Time

	// Reserved is the last second reserved, inclusive (Lease.Reserved() as
	// a Unix time): the generator uses no second after it until a renewal
	// moves it.
	Reserved time.Time
}

// LeaseRow is one worker ID of a lease store, as each store's List reads
// it for a person looking at the fleet (`uidgen workers`). A field the
// store does not keep is zero.
type LeaseRow struct {
	ID int64

	// Held says the lease has not expired by the store's clock; a leased
	// ID that is not held is free. LeaseLeft is how long it has left, by
	// the store's clock, while Held.
	Held      bool
	LeaseLeft time.Duration

	// Reserved is the last Unix second reserved for the ID's holders,
	// inclusive, as Lease.Reserved(). ReservedAhead is how far it runs
	// ahead of the clock (the database's for a SQL table, this process's
	// for etcd and Redis), never below 0.
	Reserved      int64
	ReservedAhead time.Duration

	// Host, PID and Since name the holder and when it acquired the ID,
	// while Held; PID where the store keeps it (etcd, Redis, a SQLite
	// file). A SQL table keeps the last holder's Host after the lease ends.
	Host  string
	PID   int
	Since time.Time
}
