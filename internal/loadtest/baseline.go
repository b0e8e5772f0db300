package loadtest

// The baselines are the cheapest shared counters there are: a UID generator
// cannot beat a bare atomic add, and a lock-based one pays at least a
// mutex; the targets are ratios to these, measured in the same run.

import (
	"sync"
	"sync/atomic"
)

// Atomic returns a counter that is a bare atomic.Int64.Add: unique, but
// neither time-ordered nor unique across processes.
func Atomic() func() (int64, error) {
	var n atomic.Int64
	return func() (int64, error) { return n.Add(1), nil }
}

// Mutex returns a counter under a sync.Mutex: the shape of defaultgen's
// NextID without its clock.
func Mutex() func() (int64, error) {
	var (
		mu sync.Mutex
		n  int64
	)
	return func() (int64, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return n, nil
	}
}
