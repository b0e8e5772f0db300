//go:build !race

package ring

// windows says takeWindow and dropWindow run: not without the race
// detector, where the compiler drops their calls.
const windows = false
