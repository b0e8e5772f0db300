// Package spintest checks Promela models with SPIN from Go tests.
//
// Check verifies a model exhaustively: every assertion holds and no
// process is stuck where it may not end, in every interleaving. It then
// builds the model again once for each of its mutations, with the
// mutation's name defined for the preprocessor, and wants SPIN to find a
// counterexample to each: a model that verifies with a step of the proof
// taken out is too weak to check that step.
//
// SPIN (Debian's spin) and a C compiler must be installed; a test skips
// without them, and fails instead where CI is set. Under -race it skips:
// the search is SPIN's, and the race detector checks none of it.
package spintest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// Model is one Promela model and what its check needs.
type Model struct {
	// Path is the model's file. It may include files beside it.
	Path string
	// Mutations name the breaks of the model's proof, each defined (as
	// with -DNAME) in a build of its own; the model's text says what each
	// takes out.
	Mutations []string
	// Liveness checks acceptance cycles (never claims and LTL formulas)
	// as well as safety.
	Liveness bool
	// CFlags are passed to the C compiler after the kit's own, so they may
	// override them: -O0 or -O1 builds the verifier several times faster
	// than -O2 and searches somewhat slower, the better trade for a model
	// with many mutations, whose searches end at their first counterexample.
	CFlags []string
}

// memLimit bounds the verifier's memory in MiB: a model that outgrows it
// fails rather than swapping a CI machine to a halt.
const memLimit = 2048

// Check verifies m, then wants a counterexample from every mutation of m.
func Check(t *testing.T, m Model) {
	t.Helper()
	if sizetest.Race() {
		// The search is SPIN's, in C: the race detector checks nothing of
		// it, and .ci/run's pass without -race runs it.
		t.Skip("a SPIN search gains nothing under -race: it runs in the pass without it")
	}
	for _, tool := range []string{"spin", "cc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed: .ci/run installs Debian's spin and gcc", tool)
			}
			t.Skipf("%s is not installed (Debian's spin and gcc)", tool)
		}
	}
	path, err := filepath.Abs(m.Path)
	if err != nil {
		t.Fatal(err)
	}
	if r := verify(t, path, m, ""); r.errors != 0 {
		t.Fatalf("%s: SPIN finds %d errors:\n%s\nthe counterexample:\n%s", m.Path, r.errors, r.out, r.trail)
	}
	for _, mutation := range m.Mutations {
		t.Run(mutation, func(t *testing.T) {
			if r := verify(t, path, m, mutation); r.errors == 0 {
				t.Errorf("%s with %s: SPIN finds no counterexample; the model does not check the step %s takes out:\n%s", m.Path, mutation, mutation, r.out)
			}
		})
	}
}

// result is what one run of SPIN's verifier found.
type result struct {
	errors int
	out    string // the verifier's report
	trail  string // the first counterexample, step by step, if any
}

var errorCount = regexp.MustCompile(`errors: (\d+)`)

// verify builds and runs the verifier of m, whose model is at path, with
// define set (none if empty), in a directory of its own, and fails t if
// the search was not exhaustive.
func verify(t *testing.T, path string, m Model, define string) result {
	t.Helper()
	dir := t.TempDir()
	spinArgs := []string{"-a"}
	ccArgs := []string{"-O2", "-w", "-o", "pan", "pan.c", fmt.Sprintf("-DMEMLIM=%d", memLimit)}
	panArgs := []string{"-m1000000"}
	if define != "" {
		spinArgs = append(spinArgs, "-D"+define)
	}
	if m.Liveness {
		panArgs = append(panArgs, "-a")
	} else {
		ccArgs = append(ccArgs, "-DSAFETY")
	}
	ccArgs = append(ccArgs, m.CFlags...)
	name := copyModel(t, path, dir)
	run(t, dir, "spin", append(spinArgs, name)...)
	run(t, dir, "cc", ccArgs...)
	out := run(t, dir, "./pan", panArgs...)
	count := errorCount.FindStringSubmatch(out)
	if count == nil {
		t.Fatalf("%s: the verifier's report has no error count:\n%s", path, out)
	}
	n, _ := strconv.Atoi(count[1])
	r := result{errors: n, out: out}
	if n > 0 {
		replay := append([]string{"-t", "-p", "-g", "-l"}, spinArgs[1:]...)
		r.trail = run(t, dir, "spin", append(replay, name)...)
		return r
	}
	// A search cut short proves nothing: with no error found, it must
	// have covered every state.
	for _, cut := range []string{"max search depth too small", "reached -DMEMLIM bound", "out of memory"} {
		if regexp.MustCompile(regexp.QuoteMeta(cut)).MatchString(out) {
			t.Fatalf("%s (%s): the search is not exhaustive, %q:\n%s", path, define, cut, out)
		}
	}
	return r
}

// copyModel copies the model at path, and the .pml and .h files beside it
// that it may include, into dir, and returns its name there: SPIN writes a
// counterexample's trail beside the model and reads it back from there.
func copyModel(t *testing.T, path, dir string) string {
	t.Helper()
	for _, pattern := range []string{"*.pml", "*.h"} {
		files, err := filepath.Glob(filepath.Join(filepath.Dir(path), pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return filepath.Base(path)
}

// run runs name with args in dir and returns its output, failing t if it
// cannot run or exits non-zero.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}
