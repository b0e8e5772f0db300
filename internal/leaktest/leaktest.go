// Package leaktest counts the goroutines running a given function, so a test can
// check that one component's goroutine is gone after Close without counting
// every goroutine in the process, which other tests and the runtime change
// at will.
package leaktest

import (
	"bytes"
	"runtime"
	"time"
)

// Running returns how many goroutines have fn (a fully qualified function
// name, such as "example.com/pkg.(*T).run") on their stack.
func Running(fn string) int {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for g := range bytes.SplitSeq(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte(fn+"(")) {
			count++
		}
	}
	return count
}

// Settle waits, up to within, until no goroutine has fn on its stack, and
// returns how many still do. A goroutine that closes its done channel in a
// deferred call is still leaving fn for a moment after the closer has
// returned; one that never leaves is still counted at the deadline. It
// polls every millisecond, since each look stops the world to read every
// stack. Not for a synctest bubble, where its clock would not move: there,
// synctest.Wait settles the goroutines.
func Settle(fn string, within time.Duration) int {
	deadline := time.Now().Add(within)
	for {
		n := Running(fn)
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(time.Millisecond)
	}
}
