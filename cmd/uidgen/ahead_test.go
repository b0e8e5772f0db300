package main

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// How far ahead of the clock the IDs of the embedded store's commonest
// paths may be: restarts and crashes spend what the ID handed out, not
// what the ring or the lease held ahead.

// aheadOf returns how far the time in id is ahead of at, the clock when it
// was received; negative when behind. An ID's time is the start of its
// tick, so an ID of the clock's own second is up to a second behind.
func aheadOf(id int64, at time.Time) time.Duration {
	return uidgen.DefaultLayout().Parse(id).Time.Sub(at)
}

// TestRestartsStayNearTheClock: ten gen -n 1 back to back on one worker ID
// each start in the second after the last ID the one before handed out,
// not past the ring it filled, and no more than a second ahead of the
// clock: the next run waits for the clock rather than start further ahead.
// Every ID is at most a second ahead (the tenth was 72 s ahead when Close
// gave back the ring's last tick, 8.5 s when nothing waited), and IDs
// increase.
func TestRestartsStayNearTheClock(t *testing.T) {
	for _, args := range [][]string{{"-worker", "7"}, nil} {
		t.Run(strconv.Itoa(len(args)), func(t *testing.T) {
			isolateDB(t)
			var prev int64
			for run := range 10 {
				ids := genProcess(t, append([]string{"-n", "1"}, args...)...)
				at := time.Now()
				if len(ids) != 1 || ids[0] <= prev {
					t.Fatalf("run %d printed %v, want one ID above the last run's %d", run, ids, prev)
				}
				if ahead := aheadOf(ids[0], at); ahead > time.Second {
					t.Fatalf("run %d's ID is %v ahead of the clock, want at most a second", run, ahead)
				}
				prev = ids[0]
			}
		})
	}
}

// TestCrashLoopStaysNearTheClock: serve on a pinned worker ID, killed with
// SIGKILL right after it served an ID, three times, then started a fourth
// time: its first ID is at most 10 s ahead of the clock (1,832 s when each
// crash left a ten-minute horizon and each holder started above it). With
// -worker and with a range of one ID.
func TestCrashLoopStaysNearTheClock(t *testing.T) {
	for _, args := range [][]string{{"-worker", "4"}, {"-worker-ids", "4-4"}} {
		t.Run(args[0], func(t *testing.T) {
			var prev int64
			for run := range 4 {
				s := startServer(t, args...)
				r := s.do(t, "GET", "/id")
				at := time.Now()
				id, err := strconv.ParseInt(strings.TrimSpace(r.body), 10, 64)
				if err != nil || r.status != 200 {
					t.Fatalf("run %d: GET /id = %d %q", run, r.status, r.body)
				}
				if w := uidgen.DefaultLayout().Parse(id).WorkerID; w != 4 || id <= prev {
					t.Fatalf("run %d: ID %d of worker %d, want worker 4, above the last run's %d", run, id, w, prev)
				}
				if ahead := aheadOf(id, at); ahead > time.Second {
					t.Fatalf("run %d, after %d crashes: the first ID is %v ahead of the clock, want at most a second", run, run, ahead)
				}
				prev = id
				if run < 3 {
					kill(t, s)
				}
			}
		})
	}
}

// kill ends s with SIGKILL, as a crash does, and waits for it to exit.
func kill(t *testing.T, s *server) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(serveStopTimeout):
		t.Fatalf("still running %v after SIGKILL", serveStopTimeout)
	}
}
