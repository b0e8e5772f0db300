package leasing

import "time"

// ColdSlack is how far ahead of the taker's clock, in seconds, a free ID's
// reservation may run and still count as cold: a clean release records the
// last second its generator used, which borrowing under load may have put a
// few seconds ahead of the clock, and its ID should come back at once, to a
// holder that starts a few seconds ahead, rather than count as left by a
// crash. The SQL store compares it with the database's clock.
const ColdSlack = 10

// Candidate is what a store says of one worker ID it has leased before,
// for Choose.
type Candidate struct {
	ID       int64
	Reserved int64 // the last Unix second reserved for the ID's holders
	Held     bool  // a process holds the ID now
}

// Choose returns the ID in [lo, hi] that a new holder takes at now, by its
// own clock, given the IDs leased before (sorted by ID, those outside the
// range included): the lowest free ID whose reservation has passed or passes
// within ColdSlack; else the lowest ID from lo never leased; else the free ID
// whose reservation ends soonest, whose holder will start above it. It
// returns false when every ID in [lo, hi] is held. Which ID it picks changes
// how soon a holder may start, never whether two holders can share a
// second: the take that follows starts above the reservation it finds.
func Choose(leased []Candidate, now time.Time, lo, hi int64) (int64, bool) {
	free := func(c Candidate) bool { return !c.Held && lo <= c.ID && c.ID <= hi }
	for _, c := range leased {
		if free(c) && c.Reserved <= now.Unix()+ColdSlack {
			return c.ID, true
		}
	}
	next := lo
	for _, c := range leased {
		if c.ID < lo {
			continue
		}
		if c.ID != next {
			break
		}
		next++
	}
	if next <= hi {
		return next, true
	}
	var soonest *Candidate
	for i, c := range leased {
		if free(c) && (soonest == nil || c.Reserved < soonest.Reserved) {
			soonest = &leased[i]
		}
	}
	if soonest == nil {
		return 0, false
	}
	return soonest.ID, true
}
