package etcdworker

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// holder is the value of a held/ID key: who holds the ID, for a person
// reading the fleet. Nothing in it decides anything.
type holder struct {
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
}

// idState is what a fleet's keys say of one worker ID.
type idState struct {
	id       int64
	reserved int64 // the value of reserved/ID; 0 where the ID was never leased
	modRev   int64 // the mod revision of reserved/ID; 0 where it is absent

	held   bool
	holder holder
	lease  clientv3.LeaseID // held/ID's etcd lease
}

// readFleet reads every key of the fleet under prefix at one revision, in
// one transaction, and returns what they say by ID, lowest first.
func readFleet(ctx context.Context, c *clientv3.Client, prefix string) ([]idState, error) {
	resp, err := c.Txn(ctx).Then(
		clientv3.OpGet(prefix+"reserved/", clientv3.WithPrefix()),
		clientv3.OpGet(prefix+"held/", clientv3.WithPrefix()),
	).Commit()
	if err != nil {
		return nil, err
	}
	byID := map[int64]*idState{}
	state := func(id int64) *idState {
		if byID[id] == nil {
			byID[id] = &idState{id: id}
		}
		return byID[id]
	}
	for _, kv := range resp.Responses[0].GetResponseRange().Kvs {
		id, err := keyID(string(kv.Key), prefix+"reserved/")
		if err != nil {
			return nil, err
		}
		sec, err := strconv.ParseInt(string(kv.Value), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %s holds %q, want a Unix second", uidgen.ErrBadKey, kv.Key, kv.Value)
		}
		s := state(id)
		s.reserved, s.modRev = sec, kv.ModRevision
	}
	for _, kv := range resp.Responses[1].GetResponseRange().Kvs {
		id, err := keyID(string(kv.Key), prefix+"held/")
		if err != nil {
			return nil, err
		}
		s := state(id)
		s.held, s.lease = true, clientv3.LeaseID(kv.Lease)
		if err := json.Unmarshal(kv.Value, &s.holder); err != nil {
			return nil, fmt.Errorf("%w: %s holds %q: %v", uidgen.ErrBadKey, kv.Key, kv.Value, err)
		}
	}
	states := make([]idState, 0, len(byID))
	for _, s := range byID {
		states = append(states, *s)
	}
	slices.SortFunc(states, func(a, b idState) int { return int(a.id - b.id) })
	return states, nil
}

// keyID returns the worker ID that ends key, which starts with dir.
func keyID(key, dir string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(key, dir), 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("%w: key %s, want %sN for a worker ID N of 1 or more", uidgen.ErrBadKey, key, dir)
	}
	return id, nil
}

// choose returns the state of the ID in [lo, hi] that leasing.Choose picks
// for a new holder at now, by its clock, from states (sorted by ID); an ID
// never leased has the zero state but its ID. It returns false when every
// ID in [lo, hi] is held.
func choose(states []idState, now time.Time, lo, hi int64) (idState, bool) {
	candidates := make([]leasing.Candidate, len(states))
	for i, s := range states {
		candidates[i] = leasing.Candidate{ID: s.id, Reserved: s.reserved, Held: s.held}
	}
	id, ok := leasing.Choose(candidates, now, lo, hi)
	if !ok {
		return idState{}, false
	}
	if i := slices.IndexFunc(states, func(s idState) bool { return s.id == id }); i >= 0 {
		return states[i], true
	}
	return idState{id: id}, true
}

// List returns the worker IDs of cfg's fleet, by ID, and for each held one
// asks the cluster how long its lease has left: a uidgen.LeaseRow each, whose
// Host, PID and Since name the holder while Held, and whose ReservedAhead is
// by this process's clock. It fails with an error wrapping uidgen.ErrConfig
// (a nil Client, a bad Prefix) before sending anything, with one
// wrapping uidgen.ErrBadKey when a key under the prefix is not this package's,
// and otherwise with the client's error.
func List(ctx context.Context, cfg Config) ([]uidgen.LeaseRow, error) {
	c, err := cfg.check()
	if err != nil {
		return nil, err
	}
	fail := func(err error) error { return fmt.Errorf("etcdworker: list the fleet under %s: %w", c.Prefix, err) }
	states, err := readFleet(ctx, c.Client, c.Prefix)
	if err != nil {
		return nil, fail(err)
	}
	now := time.Now()
	rows := make([]uidgen.LeaseRow, 0, len(states))
	for _, s := range states {
		r := uidgen.LeaseRow{ID: s.id, Held: s.held, Reserved: s.reserved,
			ReservedAhead: time.Duration(max(s.reserved-now.Unix(), 0)) * time.Second}
		if s.held {
			r.Host, r.PID, r.Since = s.holder.Host, s.holder.PID, s.holder.Since
			ttl, err := c.Client.TimeToLive(ctx, s.lease)
			if err != nil {
				return nil, fail(err)
			}
			r.LeaseLeft = time.Duration(ttl.TTL) * time.Second
		}
		rows = append(rows, r)
	}
	return rows, nil
}
