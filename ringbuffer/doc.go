// Package ringbuffer is the lock-free ring that the cached generator hands
// UIDs out of: one producer puts runs of values, any number of consumers
// take them one at a time or many at once. It knows nothing of time, bit
// layouts or databases: the padding package fills it and the cached
// package drains it, so most programs never call it.
//
//	r, err := ringbuffer.New(ringbuffer.Config{Size: 1 << 16})
//	n := r.Put(ringbuffer.Run{First: 1, Step: 1, N: 8192}) // the producer
//	v, err := r.Take()     // any consumer
//	k, err := r.TakeN(dst) // up to len(dst) values, one atomic add a run
//
// A take on an empty ring asks Config.RejectedTake: Wait (the default)
// waits for the producer, Fail fails at once with ErrEmpty. Read Ring next
// for who may call which method; then, below, why no value is taken twice
// or lost, how stale values are dropped, and where each side writes.
//
// # Runs
//
// The producer puts a run, N values Step apart (a tick of UIDs, a range of
// segment numbers), not each value: it writes a run's four numbers once,
// and a take computes its value as First + offset*Step. Put makes a new
// run object for every run and stores a pointer to it in slot seq &
// (slots-1), where seq numbers the runs 0, 1, 2, ... It fills in the run's
// fields before that store, and never writes them again: once published,
// a run changes only in next, the offset of its next value.
//
// cur points to the run takes take from. A take moves it, with a
// compare-and-swap from the run it read to the run numbered one more,
// once that run is published and takes have passed over every value of
// cur's run.
//
// # The take
//
// A take (Take, TakeN) takes values in two steps:
//
//  1. It reads cur: run d.
//  2. One atomic add of k to d's next returns the old next, off; the
//     take owns the offsets off..off+k-1 below d's N, and hands out their
//     values, First + offset*Step, read from d's fields. An add that passed
//     the end owns nothing there; the take moves cur on and looks again.
//
// The producer keeps one rule, Room: it replaces the run in a slot only
// once cur has reached it. The run after cur is found through its slot,
// so a run replaced before cur reached it would never be taken.
//
// No value is taken twice: the adds to one run's next return disjoint
// ranges of offsets, and different runs hold different values. No value is
// lost: an offset below N is owned by exactly one add, and that take hands
// its value out. A take that read d keeps reading d however long it is
// delayed, even after Room let the producer replace d in its slot: the
// producer made a new object for the new run and left d as it was, and the
// garbage collector keeps d while a take holds it. So there is no moment in
// which an add can land on a run whose fields the take cannot read, which
// is what a ring of reused slots must guard against with a reader count or
// a compare-and-swap before every take. Values from one goroutine
// increase: cur only moves forward, a run's offsets are handed out in
// increasing order, and runs are put in increasing order.
//
// Baidu's RingBuffer.take decides that the ring is not empty from one read
// of the cursor and moves it in a second step, so two takes can pass the
// test together and return one slot twice. TestStress hands a value out
// twice when Put rewrites a run in place instead of making a new one, or
// when a take counts an add past its run's end as a value; it loses values
// when a take moves cur past a run that still has some; and it wedges when
// Put replaces a run that takes have not reached (Room broken).
//
// # Stale values
//
// A producer that puts values in increasing order may make the values below
// a bound stale (DropBelow): they are never handed out. DropBelow drops them
// itself, before it publishes the bound: one compare-and-swap moves the
// head run's next from the offset read to the first fresh one, so a value
// is taken once or dropped once, never both, and a run dropped to its end
// is passed. Once it returns, no value below the bound is left to take; a
// later Put leaves those of its run out of the ring (counted as stale too).
// So a take never looks at the bound: a take that began before
// DropBelow returned may still get a value below it, one it took before
// the drop. TestStress's stale cases fail when a take hands out a value
// below the bound the test read before the take began (as one does when
// DropBelow publishes the bound before it drops), or when a drop counts
// values another take took; TestPutBelowLowest fails when Put hands out
// values below the bound, or Stats counts them as waiting.
//
// # Cache lines
//
// A take writes one line: its run's next, which has a line to itself.
// The run's other fields and the fields New sets sit on lines no one
// writes after, and cur on one written once a run, by the take that
// finishes it, so they stay in every consumer's cache; takes on several
// cores pass only next's line between them, as an atomic counter's adds
// do. The producer writes no line a take writes but in DropBelow, about
// once a second: it makes a run, stores one pointer, and publishes tail
// and the count of values put, on a line of their own. bench/RESULTS.md
// has what this costs next to a bare atomic add, and what a ring of one
// 16-byte slot a value cost before it.
//
// The words these docs use, such as tick, run, take, lease and claim,
// mean one thing each, defined in the repository's docs/glossary.md.
package ringbuffer
