// Package segment hands out dense, increasing numbers from a database table,
// as Meituan's Leaf-segment and Taobao's TDDL sequence do: each process
// claims a range of numbers from the row of a business tag, hands them out
// from memory, and claims the next range before the last one runs out.
// The program opens the *sql.DB with the driver it imports, as for package
// worker:
//
//	db, err := sql.Open("mysql", dsn) // or sql.Open("pgx", url)
//	cfg := segment.Config{DB: db, Tag: "order"}
//	err = segment.EnsureSchema(ctx, cfg) // Leaf's leaf_alloc, and a table beside it
//	g, err := segment.New(ctx, cfg)      // creates the tag at 1 if it is missing
//	defer g.Close()                      // gives back what it did not hand out
//	n, err := g.NextID()
//
// Numbers from one goroutine increase. Numbers from different processes are
// unique but not ordered: each process hands out its own range, so process
// A may hand out 2001 before process B hands out 1500. (Leaf's users ask
// this in Meituan-Dianping/Leaf #64 and #79; no segment scheme can order
// numbers across processes without a round trip per number.)
//
// Read Config next for Start (to move a table off AUTO_INCREMENT), the step
// and ClaimEvery; then, below, the table, why no two processes hand out the
// same number, and how ranges are sized.
//
// # Takes while the database is down
//
// The numbers go through the cached generator's lock-free ring, filled by
// the same padding goroutine: the padder puts numbers from the range in
// hand, and a claimer goroutine fetches the next range from the database
// while half of the current one is still unused (Leaf's "double buffer"), so
// a take at a steady rate never waits on the database while it is up. When
// the database is down, takes go on from what was claimed; once that runs
// out they wait, as the take policy says, and then fail with the database's
// error, wrapping uidgen.ErrUnreachable where the server can not be reached;
// the claimer keeps trying, and the generator recovers by itself when the
// database answers.
//
// # The table
//
// The table is Leaf's leaf_alloc, with Leaf's meaning: a tag's row holds
// max_id, the first number not yet claimed, and step; a claim of s numbers
// moves max_id from m to m + s and owns [m, m + s). A Java Leaf server can
// share the table: its claims are claims of step numbers. Beside it,
// leaf_alloc_returned (the tag table's name and "_returned") holds runs of
// numbers that a Close gave back below max_id, for later claims to hand
// out, lowest first: Leaf's servers never read it, and lose nothing by it.
// EnsureSchema creates both tables; New creates a missing tag, at 1 or at
// Config.Start. Without the second table (a table Leaf made), a Close loses
// what it cannot give back through max_id, as Leaf's restarts do. A table of
// the name with other columns, or a 32-bit max_id, is another program's:
// EnsureSchema, New, Lookup and List refuse it, changing nothing, and name
// the columns that differ.
//
// # Why no two processes hand out the same number
//
// The invariant: no number at or above a tag's max_id is owned by any
// process (handed out, or waiting to be); every number in one of the tag's
// rows of the returned table is below max_id, in no other row, and owned by
// no process. Every statement that changes max_id or those rows keeps it,
// and the database applies them one at a time:
//
//  1. A claim is one statement, UPDATE ... SET max_id = max_id + s (on
//     MySQL through LAST_INSERT_ID(max_id + s), which hands the new value
//     back with the update; on PostgreSQL and SQLite with RETURNING): it reads m and
//     writes m + s atomically, so the range [m, m + s) it takes is above
//     every owned number, and no other claim can take any of it. Leaf's
//     own claims are the same statement with s = step. (Read max_id in a
//     statement of its own before the update: TestDenseAcrossRestarts
//     fails, two generators owning one range.)
//  2. A return through max_id (Close) names the max_id its process's last
//     claim left, e: UPDATE ... SET max_id = r WHERE max_id = e, where
//     [r, e) is a run of the process's own numbers that it has not handed
//     out and never will (the ring is sealed and drained first). The update
//     changes the row only if max_id is still e: then, by the invariant,
//     nothing at or above e is owned, and [r, e) is owned by this process
//     alone, so no returned row holds any of it, and every row lies below
//     r; the process gives [r, e) up, and nothing at or above r is owned.
//     (max_id may have moved away from e and come back: only by a return
//     of everything above e, which leaves nothing above e owned either.)
//     (Drop WHERE max_id = e: TestDenseAcrossRestarts fails, with numbers
//     handed out twice or lost below max_id.)
//  3. A return to the table (Close, for every other run it holds, and for
//     that one when max_id moved) inserts the run [a, b) as a row: the
//     process owned it, so no other row holds any of it and it lies below
//     max_id; the process gives it up, and the table owns it.
//  4. A claim takes a returned run with DELETE ... WHERE biz_tag = ? AND
//     start_id = a AND end_id = b, and owns [a, b) only if the delete
//     affected the row: of processes that read the same row, the database
//     lets one delete it. (Take a row without the delete's count:
//     TestDenseAcrossRestarts, whose four generators restart side by side,
//     fails: two of them own one run, and the second to give it back finds
//     it in the table already.)
//
// New's other writes keep it too: it inserts a tag's row only where there
// is none, and moves max_id up to Start only with an update conditional on
// the max_id it read. What no statement here can keep it through is a row
// deleted and made again, which forgets what was claimed: never delete a
// tag's row while its numbers are in use. A generator that finds its row
// gone, or a claim below one it made before, stops claiming (ErrTagGone)
// rather than hand out numbers twice (TestTagRowGone).
//
// A process's own ranges increase. It takes a returned run only at or
// above the end of every range it took before. And max_id never falls below
// a range a process holds: a return through max_id lowers it to r, where
// [r, e) is the returner's own and every other owned number lies below r;
// so a new claim starts above every range the process took, too. So the
// numbers a process hands out increase.
//
// # Ranges that adapt
//
// The first range is the tag's step. Each later claim is sized to last
// Config.ClaimEvery (by default 5 minutes) at the rate numbers were handed
// out since the last claim, between the step and Config.MaxStep: so a
// process claims about once every ClaimEvery at any steady rate up to
// MaxStep per ClaimEvery, a burst gets a large range at its next claim
// rather than after several doublings (Leaf doubles or halves the step per
// claim by its 15-minute rule), and an idle process falls back to the step.
// The rate is the average since the last claim, so the first claim of a
// burst that follows a long idle time is small: at a rate that spends half
// a step faster than a round trip to the database, takes then wait for one
// or two claims before the ranges catch up. A step sized for the bursts a
// tag sees avoids that. A crash loses what the process had claimed and not
// handed out: at most about one and a half ClaimEvery of numbers at its
// rate, and one and a half MaxStep at any rate (3 million by default, as
// Leaf's MAX_STEP of a million bounds its own). A clean Close loses nothing: what it cannot give back through
// max_id, because another process claimed since, waits in the returned
// table for the next claims, so a fleet's rolling restarts leave the
// numbers below max_id dense (TestDenseAcrossRestarts), and a process
// restarted ten times alone hands out 1, 2, 3, ... without a gap
// (TestRestartsLeaveNoGap).
//
// The words these docs use, such as tick, run, take, lease and claim,
// mean one thing each, defined in the repository's docs/glossary.md.
package segment
