//go:build race

package ring

// windows says takeWindow and dropWindow run: under the race detector,
// which the stress test runs under.
const windows = true
