package leasing

import (
	"testing"
	"time"
)

// TestChoose: within [lo, hi] a cold free ID comes first, then the lowest
// ID from lo never leased, then the free ID whose reservation ends
// soonest; IDs outside the range are never chosen, whatever they hold.
func TestChoose(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	cold, hot := now.Unix()-1, now.Unix()+ColdSlack+60
	for _, tt := range []struct {
		name   string
		leased []Candidate
		lo, hi int64
		want   int64 // 0: none
	}{
		{"empty fleet, whole range", nil, 1, 7, 1},
		{"empty fleet, from lo", nil, 5, 8, 5},
		{"cold ID below lo left alone", []Candidate{{ID: 2, Reserved: cold}}, 5, 8, 5},
		{"cold ID above hi left alone", []Candidate{{ID: 9, Reserved: cold}}, 5, 8, 5},
		{"cold ID in range first", []Candidate{{ID: 5, Held: true}, {ID: 7, Reserved: cold}}, 5, 8, 7},
		{"lowest never leased from lo", []Candidate{{ID: 1, Held: true}, {ID: 5, Held: true}, {ID: 6, Reserved: hot}}, 5, 8, 7},
		{"hot soonest once the range is used", []Candidate{
			{ID: 4, Reserved: cold}, {ID: 5, Reserved: hot + 9}, {ID: 6, Reserved: hot}, {ID: 7, Held: true}, {ID: 8, Held: true},
			{ID: 9, Reserved: cold},
		}, 5, 8, 6},
		{"full range", []Candidate{
			{ID: 4, Reserved: cold}, {ID: 5, Held: true}, {ID: 6, Held: true}, {ID: 9, Reserved: cold},
		}, 5, 6, 0},
		{"one ID", []Candidate{{ID: 3, Held: true}}, 4, 4, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id, ok := Choose(tt.leased, now, tt.lo, tt.hi)
			if ok != (tt.want != 0) || id != tt.want {
				t.Errorf("Choose(%v, %d, %d) = %d, %v; want %d", tt.leased, tt.lo, tt.hi, id, ok, tt.want)
			}
		})
	}
}
