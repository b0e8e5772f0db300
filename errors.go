package uidgen

import "errors"

// The errors the generators and layouts share, tested with errors.Is. Each is wrapped
// with the values at fault and the limit they broke.
var (
	// ErrNoAssigner: a generator's Config has neither an Assigner nor a
	// Leaser.
	ErrNoAssigner = errors.New("no worker ID assigner")

	// ErrAssignerAndLeaser: a generator's Config has both an Assigner and a
	// Leaser; the worker ID comes from one of them.
	ErrAssignerAndLeaser = errors.New("both an Assigner and a Leaser")

	// ErrEpochInFuture: the epoch is later than the clock's now.
	ErrEpochInFuture = errors.New("epoch is in the future")

	// ErrTimeExhausted: the seconds since the epoch no longer fit the time
	// bits. The layout or the epoch must change; IDs never wrap.
	ErrTimeExhausted = errors.New("time bits exhausted")

	// ErrWorkerIDRange: the Assigner handed out a worker ID below 0 or above
	// the layout's maximum.
	ErrWorkerIDRange = errors.New("worker ID out of range")

	// ErrWorkerIDs: a WorkerIDRange starts below 1, is empty or ends above
	// the largest worker ID of the layout, or "LO-HI" does not parse.
	ErrWorkerIDs = errors.New("bad worker ID range")

	// ErrAfter: a generator's Config.After is negative.
	ErrAfter = errors.New("invalid After")

	// ErrClockBackwards: the clock stepped back further than a generator
	// can bridge without repeating an ID.
	ErrClockBackwards = errors.New("clock moved backwards")

	// ErrNoGeneBits: NextIDFor was called on a layout without gene bits.
	ErrNoGeneBits = errors.New("layout has no gene bits")

	// ErrClosed: the generator has been closed.
	ErrClosed = errors.New("generator closed")

	// ErrTick: a layout's tick is below a millisecond or does not divide a
	// second.
	ErrTick = errors.New("invalid tick")

	// ErrUnknownLayout: NamedLayout was given a name it does not know.
	ErrUnknownLayout = errors.New("unknown layout name")

	// ErrLeaseTTL: a leaser's Config.LeaseTTL is outside its package's
	// limits (worker.MinLeaseTTL to worker.MaxLeaseTTL, and the same names
	// in etcdworker and redisworker).
	ErrLeaseTTL = errors.New("lease TTL out of range")

	// ErrLeaseHorizon: a leaser's Config.LeaseHorizon is outside its
	// package's limits (MinLeaseHorizon to MaxLeaseHorizon).
	ErrLeaseHorizon = errors.New("lease horizon out of range")

	// ErrMaxWorkerID: LeaseWorkerID was given a largest worker ID below 1.
	ErrMaxWorkerID = errors.New("largest worker ID out of range")

	// ErrNoFreeID: every worker ID a lease may take is held, and none came
	// free before the context ended (or, under a context with no deadline,
	// within one lease TTL).
	ErrNoFreeID = errors.New("no free worker ID")

	// ErrReleased: a Lease was used after Release.
	ErrReleased = errors.New("lease released")

	// ErrLeaseLost: another process took over a leased worker ID, so its
	// lease reserves no more seconds for this one. The holder may use what
	// was reserved before, and no second after.
	ErrLeaseLost = errors.New("worker ID lease lost")

	// ErrIDSyntax: the text is not an ID in the encoding: it is empty, has
	// a character outside the encoding's alphabet (named with its
	// position, counted from 1) or the wrong number of characters (named
	// with the number wanted). Each error of reading an ID from text is
	// wrapped with the text (its first 32 bytes, if longer), the encoding
	// and what is wrong with it.
	ErrIDSyntax = errors.New("bad ID string")

	// ErrIDRange: the text is well formed but names a number past 2^63-1,
	// or a negative one, which no generator makes; a UID's MarshalText,
	// MarshalJSON and Value refuse a negative UID with it too.
	ErrIDRange = errors.New("ID out of range")
)
