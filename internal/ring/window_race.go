//go:build race

package ring

// raceWindows says takeWindow and dropWindow run: under the race detector,
// which the stress test runs under.
const raceWindows = true
