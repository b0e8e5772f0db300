package uidgen

import "time"

// Clock is a generator's source of time. Tests inject one that they move by
// hand; Sleep lets a generator wait for the next second without the test
// waiting too.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// SystemClock returns the system clock anchored to Go's monotonic clock: Now
// is the wall time at the call to SystemClock plus the monotonic time elapsed
// since, so a wall clock stepped back (by NTP or by hand) never makes a
// generator's "now" go back. Now lags the wall clock by whatever it was
// stepped forward, and by time the machine spent suspended.
func SystemClock() Clock { return systemClock{start: time.Now()} }

type systemClock struct{ start time.Time }

func (c systemClock) Now() time.Time        { return c.start.Add(time.Since(c.start)) }
func (c systemClock) Sleep(d time.Duration) { time.Sleep(d) }
