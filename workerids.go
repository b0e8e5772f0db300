package uidgen

import (
	"fmt"
	"strconv"
	"strings"
)

// WorkerIDRange is the worker IDs a Leaser may lend, Min to Max, both
// included. Its zero value means every worker ID the layout has, 1 to the
// maxWorkerID the generator passes to LeaseWorkerID; any other range must
// have 1 <= Min <= Max <= maxWorkerID. Worker ID 0 is never leased.
//
// A range lets a leased fleet share the worker bits with another: a fleet
// that leases inside 512-1023 never touches 0-511, which an older fleet may
// hold statically while both run. Twitter's 5-bit datacenter is the same
// thing: datacenter d leases inside [32d, 32d+31].
type WorkerIDRange struct {
	Min, Max int64
}

// ParseWorkerIDs parses "LO-HI", two decimal worker IDs, as the CLI's
// -worker-ids takes them: "512-1023" is WorkerIDRange{512, 1023}. It fails
// with an error wrapping ErrConfig on any other form, a LO below 1 and
// a LO above HI.
func ParseWorkerIDs(s string) (WorkerIDRange, error) {
	lo, hi, ok := strings.Cut(s, "-")
	first, errLo := strconv.ParseInt(lo, 10, 64)
	last, errHi := strconv.ParseInt(hi, 10, 64)
	if !ok || errLo != nil || errHi != nil {
		return WorkerIDRange{}, fmt.Errorf("uidgen: %w: WorkerIDs %q: want LO-HI, such as 512-1023", ErrConfig, s)
	}
	r := WorkerIDRange{first, last}
	err := r.below() // "0-0" is the zero range to Bounds, but not to a flag
	if err == nil {
		_, _, err = r.Bounds(last)
	}
	if err != nil {
		return WorkerIDRange{}, fmt.Errorf("uidgen: %w", err)
	}
	return r, nil
}

// String returns the range as ParseWorkerIDs reads it, "512-1023", and the
// zero range as "all".
func (r WorkerIDRange) String() string {
	if r == (WorkerIDRange{}) {
		return "all"
	}
	return fmt.Sprintf("%d-%d", r.Min, r.Max)
}

// Bounds returns the first and last worker ID r lets a lease take under a
// layout whose largest worker ID is maxWorkerID: 1 and maxWorkerID for the
// zero range. It fails with an error wrapping ErrConfig, naming the
// range and the limit, when r starts below 1, is empty (Min above Max) or
// ends above maxWorkerID.
func (r WorkerIDRange) Bounds(maxWorkerID int64) (lo, hi int64, err error) {
	switch {
	case r == (WorkerIDRange{}):
		return 1, maxWorkerID, nil
	case r.Min < 1:
		return 0, 0, r.below()
	case r.Min > r.Max:
		return 0, 0, fmt.Errorf("%w: WorkerIDs %v is empty: want Min at most Max", ErrConfig, r)
	case r.Max > maxWorkerID:
		return 0, 0, fmt.Errorf("%w: WorkerIDs %v ends above %d, the layout's largest worker ID: want Max at most %d", ErrConfig, r, maxWorkerID, maxWorkerID)
	}
	return r.Min, r.Max, nil
}

// below returns the error of a range that starts below 1, and nil for any
// other.
func (r WorkerIDRange) below() error {
	if r.Min >= 1 {
		return nil
	}
	return fmt.Errorf("%w: WorkerIDs %d-%d starts at %d: want Min 1 or more (worker ID 0 is never leased)", ErrConfig, r.Min, r.Max, r.Min)
}
