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
		{"5", uidgen.WorkerIDRange{}, `"5", want LO-HI`},
		{"a-b", uidgen.WorkerIDRange{}, `"a-b", want LO-HI`},
		{"-1-5", uidgen.WorkerIDRange{}, `"-1-5", want LO-HI`},
		{"0-10", uidgen.WorkerIDRange{}, "0-10 starts at 0, want 1 or more"},
		{"0-0", uidgen.WorkerIDRange{}, "0-0 starts at 0, want 1 or more"},
		{"9-3", uidgen.WorkerIDRange{}, "9-3 is empty: 9 is above 3"},
	} {
		got, err := uidgen.ParseWorkerIDs(tt.in)
		if tt.err == "" {
			if err != nil || got != tt.want {
				t.Errorf("ParseWorkerIDs(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			continue
		}
		if !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ParseWorkerIDs(%q) = %v, %v; want an error wrapping %v naming %q", tt.in, got, err, uidgen.ErrConfig, tt.err)
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
		{uidgen.WorkerIDRange{512, 1024}, 1023, 0, 0, "512-1024 ends above 1023, the largest worker ID of the layout"},
		{uidgen.WorkerIDRange{0, 7}, 1023, 0, 0, "0-7 starts at 0, want 1 or more"},
		{uidgen.WorkerIDRange{-2, 7}, 1023, 0, 0, "-2-7 starts at -2"},
		{uidgen.WorkerIDRange{9, 3}, 1023, 0, 0, "9-3 is empty"},
		{uidgen.WorkerIDRange{Min: 5}, 1023, 0, 0, "5-0 is empty"},
	} {
		lo, hi, err := tt.r.Bounds(tt.max)
		if tt.err == "" {
			if err != nil || lo != tt.lo || hi != tt.hi {
				t.Errorf("%#v.Bounds(%d) = %d, %d, %v; want %d, %d", tt.r, tt.max, lo, hi, err, tt.lo, tt.hi)
			}
			continue
		}
		if !errors.Is(err, uidgen.ErrConfig) || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%#v.Bounds(%d) = %v; want an error wrapping %v naming %q", tt.r, tt.max, err, uidgen.ErrConfig, tt.err)
		}
	}
}
