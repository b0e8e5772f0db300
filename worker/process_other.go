//go:build !unix

package worker

// processGone reports false where this package cannot see other processes:
// a holder's ID then comes back when its lease expires.
func processGone(int) bool { return false }
