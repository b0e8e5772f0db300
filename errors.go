package uidgen

import "errors"

// The errors the generators, the layouts and the stores share, tested with
// errors.Is. Each is wrapped with the values at fault and the limit they
// broke. An error that one package alone returns is that package's; one that
// several return is defined here once, so that errors.Is(err,
// uidgen.ErrUnreachable) holds whichever of them failed.
var (
	// ErrConfig: a Config, or an argument to a constructor, holds a value
	// the package cannot work with: a required field is missing, or a
	// field is outside its limits. It is a fault for a person to fix, not
	// one to retry; the message names the field, the value and the
	// limits. Every package returns it for its own Config.
	ErrConfig = errors.New("invalid config")

	// ErrTimeExhausted: the seconds since the epoch no longer fit the time
	// bits. The layout or the epoch must change; IDs never wrap.
	ErrTimeExhausted = errors.New("time bits exhausted")

	// ErrWorkerIDRange: the Assigner handed out a worker ID below 0 or above
	// the layout's maximum.
	ErrWorkerIDRange = errors.New("worker ID out of range")

	// ErrClockBackwards: the clock stepped back further than a generator
	// can bridge without repeating an ID.
	ErrClockBackwards = errors.New("clock moved backwards")

	// ErrNoGeneBits: NextIDFor was called on a layout without gene bits.
	ErrNoGeneBits = errors.New("layout has no gene bits")

	// ErrClosed: the generator has been closed.
	ErrClosed = errors.New("generator closed")

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
	// or a negative one, which no generator makes; a UID's MarshalText
	// (and so its JSON) and Value refuse a negative UID with it too.
	ErrIDRange = errors.New("ID out of range")

	// ErrUnreachable: the database server could not be reached over the
	// network, or a SQLite file stayed locked by another process or could
	// not be opened, which its message says without this one's text
	// (worker, segment).
	ErrUnreachable = errors.New("database server unreachable")

	// ErrAccessDenied: the database server refused the user, its password
	// or its right to use the database or a table (worker, segment).
	ErrAccessDenied = errors.New("database access denied")

	// ErrNoTable: a store's table does not exist; the package's
	// EnsureSchema creates it, or run the DDL that `uidgen schema` prints
	// (worker, segment).
	ErrNoTable = errors.New("table missing")

	// ErrBadKey: a key under a fleet's prefix does not hold what the store
	// writes there: another program writes under the fleet's prefix
	// (etcdworker, redisworker).
	ErrBadKey = errors.New("unexpected key or value under the prefix")
)
