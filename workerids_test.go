package uidgen_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen"
)

func TestParseWorkerIDs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uidgen.WorkerIDRange
		err  string // "": none
	}{
		{"512-1023", uidgen.WorkerIDRange{512, 1023}, ""},
		{"3-3", uidgen.WorkerIDRange{3, 3}, ""},
		{"5", uidgen.WorkerIDRange{}, `uidgen: invalid config: WorkerIDs "5": want LO-HI, such as 512-1023`},
		{"a-b", uidgen.WorkerIDRange{}, `uidgen: invalid config: WorkerIDs "a-b": want LO-HI`},
		{"-1-5", uidgen.WorkerIDRange{}, `uidgen: invalid config: WorkerIDs "-1-5": want LO-HI`},
		{"0-10", uidgen.WorkerIDRange{}, "uidgen: invalid config: WorkerIDs 0-10 starts at 0: want Min 1 or more (worker ID 0 is never leased)"},
		{"0-0", uidgen.WorkerIDRange{}, "uidgen: invalid config: WorkerIDs 0-0 starts at 0: want Min 1 or more"},
		{"9-3", uidgen.WorkerIDRange{}, "uidgen: invalid config: WorkerIDs 9-3 is empty: want Min at most Max"},
	} {
		got, err := uidgen.ParseWorkerIDs(tt.in)
		if tt.err == "" {
			if err != nil || got != tt.want {
				t.Errorf("ParseWorkerIDs(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			continue
		}
		if !errors.Is(err, uidgen.ErrConfig) || !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("ParseWorkerIDs(%q) = %v, %v; want an error wrapping %v starting %q", tt.in, got, err, uidgen.ErrConfig, tt.err)
		}
	}
}

func TestWorkerIDRangeBounds(t *testing.T) {
	for _, tt := range []struct {
		r      uidgen.WorkerIDRange
		max    int64
		lo, hi int64
		err    string // "": none
	}{
		{uidgen.WorkerIDRange{}, 1023, 1, 1023, ""},
		{uidgen.WorkerIDRange{512, 1023}, 1023, 512, 1023, ""},
		{uidgen.WorkerIDRange{32 * 3, 32*3 + 31}, 1023, 96, 127, ""}, // Twitter's datacenter 3
		{uidgen.WorkerIDRange{512, 1024}, 1023, 0, 0, "invalid config: WorkerIDs 512-1024 ends above 1023, the layout's largest worker ID: want Max at most 1023"},
		{uidgen.WorkerIDRange{0, 7}, 1023, 0, 0, "invalid config: WorkerIDs 0-7 starts at 0: want Min 1 or more (worker ID 0 is never leased)"},
		{uidgen.WorkerIDRange{-2, 7}, 1023, 0, 0, "invalid config: WorkerIDs -2-7 starts at -2: want Min 1 or more"},
		{uidgen.WorkerIDRange{9, 3}, 1023, 0, 0, "invalid config: WorkerIDs 9-3 is empty: want Min at most Max"},
		{uidgen.WorkerIDRange{Min: 5}, 1023, 0, 0, "invalid config: WorkerIDs 5-0 is empty: want Min at most Max"},
	} {
		lo, hi, err := tt.r.Bounds(tt.max)
		if tt.err == "" {
			if err != nil || lo != tt.lo || hi != tt.hi {
				t.Errorf("%#v.Bounds(%d) = %d, %d, %v; want %d, %d", tt.r, tt.max, lo, hi, err, tt.lo, tt.hi)
			}
			continue
		}
		if !errors.Is(err, uidgen.ErrConfig) || !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("%#v.Bounds(%d) = %v; want an error wrapping %v starting %q", tt.r, tt.max, err, uidgen.ErrConfig, tt.err)
		}
	}
}
