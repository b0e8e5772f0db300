package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/seed4d941b13/uidgen/internal/fleettest"
)

func TestBenchPrintsATableRowPerGenerator(t *testing.T) {
	code, out, stderr := runCLI(t, "bench", "-d", "150ms", "-goroutines", "3", "-worker", "7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	// Column widths follow the widest cell, and a ratio under -race can
	// be wider than its title, so the header is checked by its words.
	if head := strings.Fields(lines[0]); !slices.Equal(head, []string{"generator", "×atomic", "IDs/s", "ns/ID", "p50", "p99", "max", "ahead", "ring"}) {
		t.Fatalf("header %q", lines[0])
	}
	var atomicNs float64
	for i, c := range benchRows() {
		fields := strings.Fields(lines[1+i])
		if len(fields) < 9 || fields[0] != c.name {
			t.Errorf("row %d = %q, want 9 columns or more for %s", i, lines[1+i], c.name)
			continue
		}
		// The ratio is the row's ns/ID over the atomic counter's, as the
		// table prints both: whatever the machine's load, it agrees with
		// them to within their rounding.
		x, xErr := printedNumber(fields[1], "x")
		ns, nsErr := printedNumber(fields[3], "")
		if i == 0 {
			atomicNs = ns
		}
		lo := (ns - roundingOf(ns)) / (atomicNs + roundingOf(atomicNs))
		hi := (ns + roundingOf(ns)) / (atomicNs - roundingOf(atomicNs))
		xRounding := 0.005 // two decimals below 100x, a whole number above
		if x >= 100 {
			xRounding = 0.5
		}
		if xErr != nil || nsErr != nil || i == 0 && fields[1] != "1.00x" || x < lo-xRounding || x > hi+xRounding {
			t.Errorf("row %q: ratio %q, want 1.00x for the atomic counter and ns/ID over its %v for the others (%.3g to %.3g)",
				lines[1+i], fields[1], atomicNs, lo, hi)
		}
		// The header's columns line up with the row's, in runes: µs is
		// two bytes wide in UTF-8 and one on the screen.
		if head, row := starts(lines[0]), starts(lines[1+i]); head[7] != row[7] || head[8] != row[8] {
			t.Errorf("row %q is not aligned under %q", lines[1+i], lines[0])
		}
		if !strings.Contains(stderr, c.name+"   ") {
			t.Errorf("no progress line for %s in %q", c.name, stderr)
		}
	}
	if !strings.Contains(out, "3 goroutines;") || !strings.Contains(out, "at most 8,192 IDs a second") || !strings.Contains(out, "×atomic is ns/ID over") {
		t.Errorf("no legend:\n%s", out)
	}
}

// printedNumber parses a number as bench prints it: grouped by commas,
// with suffix after it.
func printedNumber(s, suffix string) (float64, error) {
	return strconv.ParseFloat(strings.TrimSuffix(strings.ReplaceAll(s, ",", ""), suffix), 64)
}

// roundingOf is how far an ns/ID bench printed can be from the value it
// rounded: one decimal below 100, a whole number above.
func roundingOf(v float64) float64 {
	if v < 100 {
		return 0.05
	}
	return 0.5
}

// TestBenchProgress runs uidgen bench as a process with stderr on a
// terminal and on a pipe. On the terminal the progress line redraws itself
// with carriage returns; on the pipe every progress line is a line of its
// own, at most one a second and one at the end for each generator. Either
// way the table goes to stdout, and stdout alone.
func TestBenchProgress(t *testing.T) {
	t.Run("terminal", func(t *testing.T) {
		pty, tty := openPTY(t)
		var stdout bytes.Buffer
		cmd := uidgenCommand(t, "bench", "-d", "500ms", "-worker", "3")
		cmd.Stdout, cmd.Stderr = &stdout, tty
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tty.Close() // the child has its own copy; the last one closed ends the reads
		screen := make(chan []byte)
		go func() {
			b, _ := io.ReadAll(pty) // EIO once the child exits: the end of the terminal's output
			screen <- b
		}()
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		stderr := string(<-screen)
		for _, c := range contenders {
			if n := strings.Count(stderr, "\r"+c.name+" "); n < 2 {
				t.Errorf("the progress line for %s is drawn %d times, want twice or more, each after a carriage return:\n%q", c.name, n, stderr)
			}
		}
		checkTable(t, stdout.String())
	})
	t.Run("pipe", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		cmd := uidgenCommand(t, "bench", "-d", "1100ms", "-worker", "3")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %s", err, &stderr)
		}
		if strings.Contains(stderr.String(), "\r") {
			t.Errorf("carriage returns on a pipe: %q", &stderr)
		}
		lines := strings.SplitAfter(stderr.String(), "\n")
		for _, c := range contenders {
			// One a second, and one at the end, which says how long the
			// run took: past -d, a default generator's callers sleep to the
			// next second, so a run of 1.1 s can end after 2.
			n, last := 0, 0.0
			for _, l := range lines {
				if f := strings.Fields(l); len(f) > 1 && f[0] == c.name && strings.HasSuffix(l, " IDs/s\n") {
					n++
					var err error
					if last, err = strconv.ParseFloat(strings.TrimSuffix(f[1], "s"), 64); err != nil {
						t.Errorf("progress line %q: %v", l, err)
					}
				}
			}
			if n < 1 || n > 1+int(last) {
				t.Errorf("%d progress lines for %s in %.1f s, want 1 to %d:\n%s", n, c.name, last, 1+int(last), &stderr)
			}
		}
		checkTable(t, stdout.String())
	})
}

// benchRows are the rows bench prints without -segment: the baseline, then
// every contender.
func benchRows() []contender { return append([]contender{atomicContender}, contenders...) }

// checkTable fails t unless out is bench's table and legend, and only that.
func checkTable(t *testing.T, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "generator  ×atomic") || len(lines) < 1+len(benchRows()) {
		t.Fatalf("stdout does not start with the table:\n%s", out)
	}
	for i, c := range benchRows() {
		if !strings.HasPrefix(lines[1+i], c.name+" ") {
			t.Errorf("row %d = %q, want %s's", i, lines[1+i], c.name)
		}
	}
	if strings.Contains(out, "\r") || strings.Contains(out, " of 1") || strings.Contains(out, " of 5") {
		t.Errorf("progress on stdout:\n%q", out)
	}
}

// uidgenCommand returns the test binary set up to run as uidgen with args.
func uidgenCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd, err := fleettest.Command(t.Context(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// openPTY opens a pseudo-terminal: the master end, which reads what is
// written to the terminal, and the terminal itself.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { pty.Close() })
	fd := int(pty.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil { // unlock the terminal
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return pty, tty
}

func TestBenchBadCalls(t *testing.T) {
	testBadCalls(t, []badCall{
		{[]string{"bench", "-d", "0s"}, "-d 0s: must be more than 0"},
		{[]string{"bench", "-d", "soon"}, `invalid value "soon" for flag -d`},
		{[]string{"bench", "-goroutines", "0"}, "-goroutines 0: must be 1 or more"},
		{[]string{"bench", "-worker", "-3"}, "worker ID -3 is not in [0, 1048575]"},
		{[]string{"bench", "-seq-bits", "20"}, "= 71: want at most 64"},
		{[]string{"bench", "now"}, `unexpected argument "now"`},
	})
}

// TestBenchBadWorkerFirst: a static worker ID that the layout cannot hold
// is refused before the atomic baseline runs, not once it has run for -d.
func TestBenchBadWorkerFirst(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "-worker", "1048576", "-d", "2s"},
		{"bench", "-worker-bits", "8", "-seq-bits", "25", "-worker", "256", "-d", "2s"},
	} {
		code, out, stderr := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(stderr, "is not in [0, ") {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q; want 2 and the worker ID's range", args, code, out, stderr)
		}
		if strings.Contains(stderr, "atomic") {
			t.Errorf("%v: the baseline ran before the worker ID was refused: %q", args, stderr)
		}
	}
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
