package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runCLI runs the command line args and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(args, &out, &errOut, newStores(&errOut))
	return code, out.String(), errOut.String()
}

func TestGenPrintsIncreasingIDs(t *testing.T) {
	for _, c := range contenders {
		t.Run(c.name, func(t *testing.T) { testGen(t, c.name) })
	}
}

func testGen(t *testing.T, generator string) {
	code, out, stderr := runCLI(t, "gen", "-n", "50", "-worker", "9", "-generator", generator)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Fields(out)
	if len(lines) != 50 {
		t.Fatalf("printed %d IDs, want 50", len(lines))
	}
	var prev int64
	for _, l := range lines {
		id, err := strconv.ParseInt(l, 10, 64)
		if err != nil || id <= prev {
			t.Fatalf("ID %q after %d: %v", l, prev, err)
		}
		prev = id
	}
	// What gen makes, parse reads back to the same worker.
	code, out, _ = runCLI(t, "parse", "-json", lines[0], lines[49])
	if code != 0 {
		t.Fatalf("parse exit %d", code)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	for _, want := range []string{lines[0], lines[49]} {
		var id struct{ UID, WorkerID string }
		if err := dec.Decode(&id); err != nil || id.UID != want || id.WorkerID != "9" {
			t.Fatalf("parse -json gave %+v, %v; want UID %s, worker 9", id, err, want)
		}
	}
}

func TestParsePrintsBaidusString(t *testing.T) {
	// 2026-11-22 08:30:00 UTC, worker 42, sequence 2 in the default layout.
	code, out, _ := runCLI(t, "parse", "512360392635531266")
	if code != 0 || !strings.HasPrefix(out, `{"UID":"512360392635531266","timestamp":"`) ||
		!strings.HasSuffix(out, `","workerId":"42","sequence":"2"}`+"\n") {
		t.Fatalf("exit %d, output %q", code, out)
	}
}

// TestParseExpiredLayout reads an ID of Baidu's defaults, whose time bits ran
// out in 2024, as Baidu's own Java parses it (-json gives the time in UTC).
func TestParseExpiredLayout(t *testing.T) {
	code, out, stderr := runCLI(t, "parse", "-json", "-time-bits", "28", "-worker-bits", "22", "-seq-bits", "13",
		"-epoch", "2016-05-20", "9219312100282790113")
	var id struct {
		UID, WorkerID, Sequence string
		Time                    time.Time
	}
	if code != 0 || json.Unmarshal([]byte(out), &id) != nil {
		t.Fatalf("exit %d, output %q, %s", code, out, stderr)
	}
	// Java's allocate(2024-11-19 12:34:56 UTC - epoch, 1234567, 4321).
	if id.UID != "9219312100282790113" || id.WorkerID != "1234567" || id.Sequence != "4321" ||
		!id.Time.Equal(time.Date(2024, 11, 19, 12, 34, 56, 0, time.UTC)) {
		t.Fatalf("parse = %s, want Java's 2024-11-19 12:34:56, worker 1234567, sequence 4321", out)
	}
}

// TestGenForKey: with gene bits, gen -key makes every ID land on the key's
// shard, and parse reads the gene back; a 53-bit layout keeps IDs below
// 2^53.
func TestGenForKey(t *testing.T) {
	layout := []string{"-time-bits", "31", "-worker-bits", "8", "-seq-bits", "11", "-gene-bits", "3"}
	for _, c := range contenders {
		code, out, stderr := runCLI(t, append([]string{"gen", "-n", "20", "-key", "13", "-generator", c.name}, layout...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		for _, f := range strings.Fields(out) {
			id, err := strconv.ParseInt(f, 10, 64)
			if err != nil || id%8 != 13%8 || id >= 1<<53 {
				t.Fatalf("%s: ID %q: want id %% 8 == 5 and below 2^53 (%v)", c.name, f, err)
			}
		}
		code, parsed, stderr := runCLI(t, append([]string{"parse"}, append(layout, strings.Fields(out)[0])...)...)
		if code != 0 || !strings.HasSuffix(parsed, `,"gene":"5"}`+"\n") {
			t.Fatalf("%s: parse: exit %d, %q, %s", c.name, code, parsed, stderr)
		}
	}
}

func TestBadCallsExitTwo(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "Usage: uidgen COMMAND"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"gen", "-bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"gen", "-n", "-1"}, "-n -1: must be 0 or more"},
		{[]string{"gen", "-generator", "fast"}, `-generator "fast": want cached or default`},
		{[]string{"gen", "-worker", "2000000"}, "uidgen gen: cached: worker ID out of range: worker ID 2000000 is not in [0, 1048575]"},
		{[]string{"gen", "-time-bits", "40"}, "= 74, more than 64"},
		{[]string{"gen", "-key", "7"}, "-key needs -gene-bits"},
		{[]string{"gen", "-key", "x", "-gene-bits", "1", "-time-bits", "29"}, `-key "x" is not a 64-bit integer`},
		{[]string{"gen", "-epoch", "2099-01-01"}, "epoch is in the future"},
		{[]string{"gen", "-epoch", "yesterday"}, `-epoch "yesterday" is neither`},
		{[]string{"parse"}, "no ID to parse"},
		{[]string{"parse", "12x"}, `"12x" is not a 64-bit integer`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

func TestHelpOnEveryCommand(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {"help", c.name}} {
			code, _, stderr := runCLI(t, args...)
			if code != 0 || !strings.Contains(stderr, "Example:\n  uidgen "+c.name) {
				t.Errorf("%v: exit %d, help %q", args, code, stderr)
			}
		}
	}
}
