// Package human formats the numbers and spans the command prints for a
// person: bench's and plan's tables, and serve's status page.
package human

import (
	"fmt"
	"strconv"
	"time"
)

// Group formats n >= 0 with commas between groups of three digits.
func Group(n int64) string {
	s := strconv.FormatInt(n, 10)
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Ahead says how far a generator has borrowed ahead: in whole seconds
// from a second on, as the borrowed seconds of a per-second layout read
// best, and to the millisecond below, where a layout of millisecond ticks
// borrows.
func Ahead(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.Round(time.Millisecond).String()
}
