package redisworker

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seed4d941b13/uidgen"
)

// holder is the value of a held key: who holds the ID, for a person reading
// the fleet, and the take's random token, which makes the value this
// holder's alone: the scripts act only while the key holds it.
type holder struct {
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	Token string    `json:"token"`
}

// idState is what a fleet's keys say of one worker ID.
type idState struct {
	id       int64
	reserved int64 // the reservation's value: the last Unix second reserved
	held     bool
	holder   holder
	left     time.Duration // the held key's TTL, while held
}

// readFleet reads every ID of the fleet under prefix in one step
// (fleetScript), lowest first.
func readFleet(ctx context.Context, c redis.UniversalClient, prefix string) ([]idState, error) {
	res, err := fleetScript.Run(ctx, c, []string{idsKey(prefix)}, prefix).Slice()
	if redis.HasErrorPrefix(err, "WRONGTYPE") {
		// A key of the fleet is not of the type this package writes there.
		return nil, fmt.Errorf("%w: read the fleet: %w", uidgen.ErrBadKey, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read the fleet: %w", err)
	}
	if len(res)%4 != 0 {
		return nil, fmt.Errorf("%w: reading the fleet returned %d values, want 4 an ID", uidgen.ErrBadKey, len(res))
	}
	states := make([]idState, 0, len(res)/4)
	for i := 0; i < len(res); i += 4 {
		idText, _ := res[i].(string)
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil || id < 1 {
			return nil, fmt.Errorf("%w: %s holds member %q, want a worker ID of 1 or more", uidgen.ErrBadKey, idsKey(prefix), res[i])
		}
		s := idState{id: id}
		reserved, _ := res[i+1].(string)
		if s.reserved, err = strconv.ParseInt(reserved, 10, 64); err != nil {
			return nil, fmt.Errorf("%w: %s holds %q, want a Unix second", uidgen.ErrBadKey, reservedKey(prefix, id), reserved)
		}
		if value, _ := res[i+2].(string); value != "" {
			s.held = true
			if err := json.Unmarshal([]byte(value), &s.holder); err != nil {
				return nil, fmt.Errorf("%w: %s holds %q: %v", uidgen.ErrBadKey, heldKey(prefix, id), value, err)
			}
			ms, _ := res[i+3].(int64)
			s.left = time.Duration(ms) * time.Millisecond
		}
		states = append(states, s)
	}
	return states, nil
}

// List returns the worker IDs of cfg's fleet, by ID, read in one step: a
// uidgen.LeaseRow each, whose Host, PID and Since name the holder while Held, and
// whose ReservedAhead is by this process's clock. It fails with an error
// wrapping uidgen.ErrConfig (a nil Client, a bad Prefix) before sending anything,
// with one wrapping uidgen.ErrBadKey when a key of the fleet is not this
// package's, and otherwise with the client's error.
func List(ctx context.Context, cfg Config) ([]uidgen.LeaseRow, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	states, err := readFleet(ctx, c.Client, c.Prefix)
	if err != nil {
		return nil, fmt.Errorf("redisworker: list the fleet under %s: %w", c.Prefix, err)
	}
	now := time.Now()
	rows := make([]uidgen.LeaseRow, 0, len(states))
	for _, s := range states {
		r := uidgen.LeaseRow{ID: s.id, Held: s.held, Reserved: s.reserved,
			ReservedAhead: time.Duration(max(s.reserved-now.Unix(), 0)) * time.Second}
		if s.held {
			r.Host, r.PID, r.Since, r.LeaseLeft = s.holder.Host, s.holder.PID, s.holder.Since, s.left
		}
		rows = append(rows, r)
	}
	return rows, nil
}
