package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// runCLI runs the command line args and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	isolateDB(t)
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

// TestParseNamedLayouts reads the peers' IDs by name: Discord's documented
// example (2016-04-30 11:18:25.796 UTC, worker 1 and process 0, so the
// 10-bit worker field 32, increment 7), and a bwmarrin/snowflake ID to the
// millisecond in Baidu's string.
func TestParseNamedLayouts(t *testing.T) {
	old := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = old })
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-layout", "discord", "-json", "175928847299117063"},
			`{"uid":"175928847299117063","time":"2016-04-30T11:18:25.796Z","workerId":"32","sequence":"7"}`},
		// (1656432460105 - 1288834974657) << 22 | 378 << 12
		{[]string{"-layout", "bwmarrin", "1541815603606036480"},
			`{"UID":"1541815603606036480","timestamp":"2022-06-28 16:07:40.105","workerId":"378","sequence":"0"}`},
		// 100 ticks of 10 ms after 2025-01-01, sequence 5 above machine 0x1234.
		{[]string{"-layout", "sonyflake", "-json", "1678053940"},
			`{"uid":"1678053940","time":"2025-01-01T00:00:01Z","workerId":"4660","sequence":"5"}`},
	} {
		code, out, stderr := runCLI(t, append([]string{"parse"}, tt.args...)...)
		if code != 0 || out != tt.want+"\n" {
			t.Errorf("parse %v: exit %d, %q, %s; want %s", tt.args, code, out, stderr, tt.want)
		}
	}
}

// TestLayoutsLists: uidgen layouts prints a row per named layout, with its
// tick, widths, fields' order, epoch and the day it runs out.
func TestLayoutsLists(t *testing.T) {
	code, out, stderr := runCLI(t, "layouts")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		f := strings.Fields(line)
		rows[f[0]] = strings.Join(f[1:], " ")
	}
	for name, want := range map[string]string{
		"baidu":     "1s 28 22 13 sign time worker seq 2016-05-20 00:00:00 2024-11-20",
		"bwmarrin":  "1ms 41 10 12 sign time worker seq 2010-11-04 01:42:54.657 2080-07-10",
		"discord":   "1ms 42 10 12 time worker seq 2015-01-01 00:00:00 2084-09-06",
		"sonyflake": "10ms 39 16 8 sign time seq worker 2025-01-01 00:00:00 2199-03-19",
		"uidgen":    "1s 30 20 13 sign time worker seq 2025-01-01 00:00:00 2059-01-10",
	} {
		if rows[name] != want {
			t.Errorf("layouts: %s is %q, want %q", name, rows[name], want)
		}
	}
	if len(rows) != 10 {
		t.Errorf("layouts printed %d layouts, want 10:\n%s", len(rows), out)
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
		{[]string{"gen", "5"}, `unexpected argument "5": for 5 IDs, write -n 5`},
		{[]string{"gen", "-n", "3", "x"}, `unexpected argument "x"`},
		{[]string{"gen", "-generator", "fast"}, `-generator "fast": want cached or default`},
		{[]string{"gen", "-worker", "2000000"}, "invalid config: WorkerIDs 2000000-2000000 ends above 1048575, the layout's largest worker ID: want Max at most 1048575"},
		{[]string{"gen", "-time-bits", "40"}, "= 74: want at most 64"},
		{[]string{"gen", "-key", "7"}, "-key needs -gene-bits"},
		{[]string{"gen", "-key", "x", "-gene-bits", "1", "-time-bits", "29"}, `-key "x" is not a 64-bit integer`},
		{[]string{"gen", "-epoch", "2099-01-01"}, "epoch 2099-01-01 00:00:00 UTC is in the future"},
		{[]string{"gen", "-epoch", "yesterday"}, `-epoch "yesterday" is neither`},
		{[]string{"parse"}, "no ID to parse"},
		{[]string{"parse", "12x"}, `"12x" is not a 64-bit integer`},
		{[]string{"parse", "-layout", "snowflake", "1"}, `unknown layout name "snowflake": want one of baidu, bwmarrin, cosid,`},
		{[]string{"parse", "-layout", "discord", "-time-bits", "42", "1"}, "-layout discord and -time-bits"},
		{[]string{"parse", "-epoch", "2015-01-01", "-layout", "discord", "1"}, "-layout discord and -epoch"},
		{[]string{"layouts", "discord"}, `layouts takes no arguments, not ["discord"]`},
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

// TestMistypedFlagIsShort: a flag no command has, or a value a flag does
// not take, gets the one-line error and a pointer to -h, not the help.
func TestMistypedFlagIsShort(t *testing.T) {
	calls := [][]string{{"gen", "-n", "abc"}}
	for _, c := range commands {
		calls = append(calls, []string{c.name, "-bogus"})
	}
	for _, args := range calls {
		code, out, stderr := runCLI(t, args...)
		says := map[string]string{"-bogus": "flag provided but not defined: -bogus", "abc": `invalid value "abc" for flag -n: parse error`}[args[len(args)-1]]
		want := fmt.Sprintf("uidgen %s: usage: %s\nrun 'uidgen %[1]s -h' for help\n", args[0], says)
		if code != 2 || out != "" || stderr != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", args, code, out, stderr, want)
		}
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

// TestHelpSaysWhatIsTrue: -h says what each command does now: gen and
// bench keep a tag in the -db file unless -dsn names a database, workers
// lists (it leases nothing, and reads the -db file without creating it),
// and a served tag holds a few KiB (TestTagMemory in internal/serve).
func TestHelpSaysWhatIsTrue(t *testing.T) {
	for _, tt := range []struct {
		cmd        string
		has, lacks []string
	}{
		{"gen", []string{"gen -segment TAG [-db FILE | -dsn DSN]", "leaf_alloc table of the -db file, or of -dsn's database"}, []string{"-segment TAG -dsn DSN"}},
		{"bench", []string{"bench -segment TAG [-db FILE | -dsn DSN]"}, []string{"-segment TAG -dsn DSN"}},
		{"workers", []string{"never created or changed", "worker ID leases in the etcd cluster", "worker ID leases in the Redis server"},
			[]string{"created with its directory", "lease the worker ID"}},
		{"segments", []string{"never created or changed"}, []string{"created with its directory"}},
		{"serve", []string{"a few KiB"}, []string{"MiB"}},
	} {
		code, _, help := runCLI(t, tt.cmd, "-h")
		if code != 0 {
			t.Fatalf("%s -h: exit %d", tt.cmd, code)
		}
		for _, s := range tt.has {
			if !strings.Contains(help, s) {
				t.Errorf("%s -h lacks %q", tt.cmd, s)
			}
		}
		for _, s := range tt.lacks {
			if strings.Contains(help, s) {
				t.Errorf("%s -h still says %q", tt.cmd, s)
			}
		}
	}
}

// TestGenNamedLayouts: gen -layout makes IDs in the named layout with both
// generators, which parse -layout reads back to the worker ID at about now
// (Twitter's milliseconds, sonyflake's 10 ms ticks with the sequence above
// the worker); -after puts every ID above an older generator's; plan
// -layout counts in the layout's ticks; and a name with a layout flag, an
// unknown name and a negative -after are usage errors naming them.
func TestGenNamedLayouts(t *testing.T) {
	for _, name := range []string{"twitter", "sonyflake", "discord"} {
		layout, err := uidgen.NamedLayout(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range contenders[:2] { // cached and default
			code, out, stderr := runCLI(t, "gen", "-layout", name, "-generator", c.name, "-worker", "7", "-n", "5")
			if code != 0 {
				t.Fatalf("gen -layout %s -generator %s: exit %d: %s", name, c.name, code, stderr)
			}
			var last int64
			for _, f := range strings.Fields(out) {
				uid, err := strconv.ParseInt(f, 10, 64)
				if err != nil || uid <= last {
					t.Fatalf("gen -layout %s: %q after %d: %v", name, f, last, err)
				}
				last = uid
				if id := layout.Parse(uid); id.WorkerID != 7 || id.Time.Sub(time.Now()).Abs() > time.Minute {
					t.Fatalf("gen -layout %s -generator %s: %d parses as %+v, want worker 7 now", name, c.name, uid, id)
				}
			}
		}
	}

	layout, err := uidgen.NamedLayout("twitter")
	if err != nil {
		t.Fatal(err)
	}
	after := layout.Bits().Allocate(time.Since(layout.Epoch()).Milliseconds()+time.Minute.Milliseconds(), 1023, 4095)
	code, out, stderr := runCLI(t, "gen", "-layout", "twitter", "-worker", "3", "-after", strconv.FormatInt(after, 10), "-n", "3")
	first, err := strconv.ParseInt(strings.Fields(out + " x")[0], 10, 64)
	if code != 0 || err != nil || first <= after {
		t.Fatalf("gen -after %d: exit %d, first ID %d (%v): %s; want IDs above it", after, code, first, err, stderr)
	}

	code, out, stderr = runCLI(t, "plan", "-layout", "twitter")
	if code != 0 || !strings.Contains(out, "1+41+10+12 bits (sign+time+worker+sequence) in 1ms ticks from 2010-11-04 01:42:54.657 UTC") ||
		!strings.Contains(out, "4,096,000 per worker") || !strings.Contains(out, "2^41 ticks of 1ms = 69.7 years, run out 2080-07-10 17:30:30 UTC") {
		t.Errorf("plan -layout twitter: exit %d:\n%s%s", code, out, stderr)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "-layout", "twitter", "-seq-bits", "10"}, "-layout twitter and -seq-bits"},
		{[]string{"gen", "-layout", "snowflake"}, `unknown layout name "snowflake": want one of baidu, bwmarrin,`},
		{[]string{"gen", "-after", "-5"}, "-after -5"},
		{[]string{"bench", "-layout", "twitter", "-epoch", "2020-01-01"}, "-layout twitter and -epoch"},
		{[]string{"plan", "-layout", "twitter", "-fit"}, "-fit chooses the bits, -layout twitter"},
	} {
		code, _, stderr := runCLI(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}
