//go:build unix

package worker

import (
	"errors"
	"syscall"
)

// processGone reports whether no process pid runs on this machine: signal
// 0 checks that it exists without sending anything. A process of another
// user answers EPERM, and counts as running.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
