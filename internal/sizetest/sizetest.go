// Package sizetest is the one knob that shrinks the big tests: under the race
// detector (which makes atomics and channel operations ten times slower or
// more) and under -short, they run at a size that still exercises the same
// paths in reasonable time.
package sizetest

import "testing"

// Small reports whether tests should shrink: the binary was built with
// -race, or the tests run with -short.
func Small() bool { return race || testing.Short() }

// Pick returns full, or small where tests should shrink.
func Pick(full, small int) int {
	if Small() {
		return small
	}
	return full
}

// Race reports whether the binary was built with -race, whose sync.Pool
// drops a share of what is put back: a test that counts allocations
// through a pool counts them only without it.
func Race() bool { return race }
