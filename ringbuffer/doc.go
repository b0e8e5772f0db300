// Package ringbuffer is the lock-free ring that the cached generator hands
// UIDs out of: one producer puts, any number of consumers take. It knows
// nothing of time, bit layouts or databases: the padding package fills it
// and the cached package drains it, so most programs never call it.
//
//	r, err := ringbuffer.New(ringbuffer.Config{Size: 1 << 16})
//	n := r.Put(batch)      // the producer: one goroutine at a time
//	v, err := r.Take()     // any consumer
//	k, err := r.TakeN(dst) // up to len(dst) values with one claim
//
// A take on an empty ring asks Config.RejectedTake: Wait (the default)
// waits for the producer, Fail fails at once with ErrEmpty. Read Ring next
// for who may call which method; then, below, why no value is taken twice,
// how stale values are dropped, and how the ring keeps its two sides off
// each other's cache lines.
//
// # Counters
//
// The two counters that move are tail, the sequence of the last slot put, and
// cursor, the sequence of the last slot taken. Both start at -1 and only
// grow; slot s of the unbounded sequence lives at index s & (size-1).
// cursor <= tail always, and tail - cursor is the number of values waiting
// to be taken.
//
// # The take
//
// A take (Take, TakeN) claims n values in three steps:
//
//  1. Bound: it reads the cursor, c, then tail, t, and takes n = min(wanted,
//     t-c); n <= 0 means the ring is empty.
//  2. Read: it reads the values of slots c+1..c+n, with atomic loads.
//  3. Claim: one compare-and-swap moves the cursor from c to c+n. If it
//     fails, the take discards what it read and starts again at step 1.
//
// The producer (Put) keeps two rules:
//
//   - Room: it writes the slot of sequence s only once s-size <= cursor.
//   - Publish: it stores tail only after the values of every slot up to it.
//
// A take whose claim succeeds returns each of the values put at c+1..c+n,
// and no other take returns them. The cursor only grows, so the successful
// CAS proves it stayed c from step 1 to step 3: no other take claimed those
// slots, and by Room the producer wrote none of them for a later lap while
// step 2 read them (it may write s+size only once the cursor is past s).
// Tail only grows, so step 1's t >= c+n means, by Publish, that the values
// of c+1..c+n were written before step 2 read them. Every claim moves the
// cursor on from where the last one left it, so no sequence is claimed twice.
//
// Baidu's RingBuffer.take decides that the ring is not empty from one read
// of the cursor and moves it in a second step, so two takes can pass the
// test together and return one slot twice; here emptiness rests on the
// claim's own old value. TestStress hands a value out twice when Baidu's
// take is planted, when step 2 moves after step 3 (Room counts a claimed
// slot as free at once, so the producer can overwrite it before it is
// read), or when Put stores tail before the values.
//
// # Stale values
//
// A producer that puts values in increasing order may make the values below
// a bound stale (DropBelow): they are never handed out. A take checks the
// first value it read against the bound before its claim; if it is below,
// the take claims the whole stale run at the head of the ring with one CAS
// from c to the last stale sequence, and drops it (dropStale): step 2
// (Read) and step 3 (Claim) as above, with a bisection for n, so the proof
// holds for the drop as for a take, and a value is taken once or dropped
// once, never both. TestStress's stale cases fail when a take skips the
// lowest-value check, or a drop claims one value more than the stale run.
//
// Consumers never write a slot: a claimed slot has already been read, so the
// cursor alone says which slots the producer may fill, and no per-slot state
// is handed back. Handing it back, as Baidu's flags do, costs every take a
// locked store to a line the producer last wrote.
//
// # Cache lines
//
// Each side writes its own lines. The producer writes the slots' lines and
// tail's; consumers write the cursor's, and, off the fast path, that of the
// wake-up flag and the counters. Tail, cursor and the flag each sit on a
// line padded from the others and from the fields New sets, which both
// sides only read. A take reads tail's line and the slots' lines; Put reads
// the cursor's line once a call. Slot lines hold only slots: the producer
// fills the lines behind the cursor while takes read those ahead of it, so
// the two meet on at most the line the cursor is in.
//
// A slot is 16 bytes, four to a 64-byte line: its value, and a touch word
// that only the producer writes and no one reads. When consumers take flat
// out the producer is the ring's bottleneck, and each atomic store of a
// value is a full fence on amd64, so a run of them waits for the consumers'
// lines one at a time. Put first stores plainly to the touch word of each
// line of a run: plain stores do not wait for each other, so the run's lines
// come to the producer together. No value can take that plain store instead:
// a take that has lost its claim may still be reading any of them. 8-byte
// slots, with no touch word (an atomic load brings a line only shared), make
// the producer slower than slots of a line each; 16-byte ones make it faster,
// writing a quarter of the lines. bench/RESULTS.md has the numbers.
package ringbuffer
