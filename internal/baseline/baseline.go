// Package baseline holds the baselines every uidgen benchmark runs beside
// the generators: the cheapest shared counters there are. A UID generator
// cannot beat a bare atomic add, and a lock-based one pays at least a
// mutex; the targets are ratios to these, measured in the same run. It
// imports nothing but the standard library, so that the generators' own
// benchmarks add nothing to their importers' go.sum.
package baseline

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
