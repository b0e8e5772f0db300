//go:build !race

package ring

// raceWindows says takeWindow and dropWindow run: not without the race
// detector, where the compiler drops their calls.
const raceWindows = false
