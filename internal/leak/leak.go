// Package leak counts the goroutines running a given function, so a test can
// check that one component's goroutine is gone after Close without counting
// every goroutine in the process, which other tests and the runtime change
// at will.
package leak

import (
	"bytes"
	"runtime"
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
