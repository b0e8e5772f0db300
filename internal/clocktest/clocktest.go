// Package clocktest is a hand-driven clock for tests of time: it moves only
// when a test sets or advances it, or when code under test sleeps on it, so
// clock steps, second boundaries and exhausted time bits are tested without
// waiting for them.
package clocktest

import (
	"sync"
	"time"
)

// Clock satisfies uidgen.Clock. The zero value is not usable: call New.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	slept  time.Duration
	sleeps int
}

// New returns a Clock that reads t until it is moved.
func New(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's current time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep advances the clock by d instead of waiting, and records the sleep.
func (c *Clock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
		c.slept += d
	}
	c.sleeps++
}

// Advance moves the clock by d (negative d steps it back).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Slept reports how many times Sleep was called and the time it skipped.
func (c *Clock) Slept() (calls int, total time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sleeps, c.slept
}
