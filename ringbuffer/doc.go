// Package ringbuffer is the lock-free ring that the cached generator hands
// UIDs out of: one producer puts runs of values, any number of consumers
// take them one at a time or many at once. It knows nothing of time, bit
// layouts or databases: the padding package fills it and the cached
// package drains it, so most programs never call it.
//
//	r, err := ringbuffer.New(ringbuffer.Config{Size: 1 << 16})
//	n, err := r.Put(ringbuffer.Run{First: 1, Step: 1, N: 8192}) // the producer
//	v, err := r.Take()     // any consumer
//	k, err := r.TakeN(dst) // up to len(dst) values, one atomic add a run
//
// The producer puts a run, N values Step apart (a tick of UIDs, a range of
// segment numbers), not each value, and a take computes its value as
// First + offset*Step. A take on an empty ring asks Config.RejectedTake:
// Wait (the default) waits for the producer, Fail fails at once with
// ErrEmpty. DropBelow makes values below a bound stale: no take that
// begins after it returns gets one. Read Ring next for who may call which
// method.
//
// The promise: every value put is taken by exactly one take, or dropped as
// stale, never both; values one goroutine takes increase; and a take's
// common case is one atomic add, with no lock and no retry. Baidu's
// RingBuffer.take can return one slot twice. Why no value is taken twice
// or lost, step by step with the test that fails without each step, and
// where each side writes, is in the repository's
// docs/design.md#the-ring; the code is internal/ring, which this package
// names.
//
// The words these docs use, such as tick, run, take, lease and claim,
// mean one thing each, defined in the repository's docs/glossary.md.
package ringbuffer
