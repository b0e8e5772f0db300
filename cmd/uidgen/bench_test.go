package main

import (
	"strings"
	"testing"
)

func TestBenchPrintsATableRowPerGenerator(t *testing.T) {
	code, out, stderr := runCLI(t, "bench", "-d", "150ms", "-goroutines", "3", "-worker", "7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "generator  IDs/s") || !strings.Contains(lines[0], "  p99  ") {
		t.Fatalf("header %q", lines[0])
	}
	for i, c := range contenders {
		fields := strings.Fields(lines[1+i])
		if len(fields) < 8 || fields[0] != c.name {
			t.Errorf("row %d = %q, want 8 columns or more for %s", i, lines[1+i], c.name)
		}
		// The header's columns line up with the row's, in runes: µs is
		// two bytes wide in UTF-8 and one on the screen.
		if head, row := starts(lines[0]), starts(lines[1+i]); head[6] != row[6] || head[7] != row[7] {
			t.Errorf("row %q is not aligned under %q", lines[1+i], lines[0])
		}
		if !strings.Contains(stderr, "\r"+c.name) {
			t.Errorf("no progress line for %s in %q", c.name, stderr)
		}
	}
	if !strings.Contains(out, "3 goroutines;") || !strings.Contains(out, "at most 8,192 IDs a second") {
		t.Errorf("no legend:\n%s", out)
	}
}

func TestBenchBadCalls(t *testing.T) {
	testBadCalls(t, []badCall{
		{[]string{"bench", "-d", "0s"}, "-d 0s: must be more than 0"},
		{[]string{"bench", "-d", "soon"}, `invalid value "soon" for flag -d`},
		{[]string{"bench", "-goroutines", "0"}, "-goroutines 0: must be 1 or more"},
		{[]string{"bench", "-worker", "-3"}, "worker ID -3 is not in [0, 1048575]"},
		{[]string{"bench", "-seq-bits", "20"}, "= 71, more than 64"},
		{[]string{"bench", "now"}, `unexpected argument "now"`},
	})
}

// starts returns the screen columns at which line's space-separated
// fields start.
func starts(line string) []int {
	var out []int
	prev := ' '
	for col, r := range []rune(line) {
		if r != ' ' && prev == ' ' {
			out = append(out, col)
		}
		prev = r
	}
	return out
}
