// Package segment hands out dense, increasing numbers from a database table,
// as Meituan's Leaf-segment and Taobao's TDDL sequence do: each process
// claims a range of numbers from the row of a business tag, hands them out
// from memory, and claims the next range while half of the current one is
// left. The program opens the *sql.DB with the driver it imports, as for
// package worker:
//
//	db, err := sql.Open("mysql", dsn) // or sql.Open("pgx", url)
//	cfg := segment.Config{DB: db, Tag: "order"}
//	err = segment.EnsureSchema(ctx, cfg) // Leaf's leaf_alloc, and a table beside it
//	g, err := segment.New(ctx, cfg)      // creates the tag at 1 if it is missing
//	defer g.Close()                      // gives back what it did not hand out
//	n, err := g.NextID()
//
// The table is Leaf's leaf_alloc, with Leaf's meaning (max_id, the first
// number not yet claimed, and step), so a Java Leaf server can share it.
// Beside it, leaf_alloc_returned holds runs a Close gave back below max_id,
// which later claims hand out first; without it (a table Leaf made), a
// Close loses what it cannot give back through max_id, as Leaf's restarts
// do. A table of the name with other columns, or a 32-bit max_id, is
// another program's: EnsureSchema, New, Lookup and List refuse it, naming
// the columns that differ. Read Config next for Start, the step,
// ClaimEvery and MaxStep.
//
// The promise: numbers are unique across processes and restarts, and
// numbers from one goroutine increase; numbers from different processes are
// not ordered, since each hands out its own range. The numbers go through
// the cached generator's ring and padder, so while the database is down
// takes go on from what was claimed, then wait as the take policy says and
// fail with the database's error (uidgen.ErrUnreachable where it cannot be
// reached); the claimer keeps trying, and the generator recovers by itself.
// A generator whose tag row is gone stops with ErrTagGone. Why no two
// processes hand out the same number is in the repository's
// docs/design.md#segment-claims; ranges, costs and the command, in
// docs/segment.md.
//
// The words these docs use, such as tick, run, take, lease and claim,
// mean one thing each, defined in the repository's docs/glossary.md.
package segment
