package main

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/dbtest"
	"github.com/seed4d941b13/uidgen/internal/fleettest"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// TestMain lets the tests run the test binary as the uidgen command, as
// processes of a fleet (package fleettest). The tests, and the processes
// they start, keep the embedded store in a state directory of their own,
// never the user's.
func TestMain(m *testing.M) {
	if os.Getenv("UIDGEN_TEST_STATE") == "" {
		dir, err := os.MkdirTemp("", "uidgen-state")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(dir)
		os.Setenv("UIDGEN_TEST_STATE", dir)
		os.Setenv("XDG_STATE_HOME", dir)
		os.Unsetenv(dbEnv)
	}
	fleettest.Main(m, func(args []string) int { return Main(args, os.Stdout, os.Stderr, newStores(os.Stderr)) })
}

// isolateDB points the embedded store of the commands the test runs, in
// this process and in those it starts, at a file of the test's own: a
// worker ID that one test's run borrowed ahead on stays out of the
// next test's way. Calls from one test give the same file.
func isolateDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(os.Getenv("UIDGEN_TEST_STATE"), strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()), "uidgen.db")
	t.Setenv(dbEnv, path)
	return path
}

// TestFleetSharesNoID starts a fleet of separate processes at once against
// one WORKER_NODE table that none of them has created yet. Each takes its
// worker ID from the database and prints its IDs from the cached generator; no two
// processes may share a worker ID, and no ID may appear twice anywhere.
func TestFleetSharesNoID(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s dbtest.Server) {
		const processes = 8
		perProcess := sizetest.Pick(200_000, 20_000)
		table := dbtest.Table(t, s.Open(t), "WORKER_NODE_")
		args := []string{"gen", "-n", strconv.Itoa(perProcess), "-dsn", s.DSN, "-table", table}

		cmds := make([]*exec.Cmd, processes)
		outs := make([]*bytes.Buffer, processes)
		for i := range cmds {
			cmd, err := fleettest.Command(t.Context(), args...)
			if err != nil {
				t.Fatal(err)
			}
			outs[i] = new(bytes.Buffer)
			cmd.Stdout, cmd.Stderr = outs[i], new(bytes.Buffer)
			cmds[i] = cmd
		}
		for i, cmd := range cmds {
			if err := cmd.Start(); err != nil {
				t.Fatalf("start process %d: %v", i, err)
			}
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("process %d: %v: %s", i, err, cmd.Stderr)
			}
		}

		var all []int64
		workers := make(map[int64]int)
		for i, out := range outs {
			ids := parseIDs(t, out.String())
			if len(ids) != perProcess {
				t.Fatalf("process %d printed %d IDs, want %d", i, len(ids), perProcess)
			}
			w := uidgen.DefaultLayout().Parse(ids[0]).WorkerID
			if j, seen := workers[w]; seen {
				t.Fatalf("processes %d and %d both got worker ID %d", j, i, w)
			}
			workers[w] = i
			// Every ID of the process carries its worker ID, increases and parses.
			idtest.Check(t, idtest.As(uidgen.DefaultLayout(), w), [][]int64{ids})
			all = append(all, ids...)
		}
		fleettest.CheckUnique(t, uidgen.DefaultLayout().ParseUID, all)
		t.Logf("%d processes, worker IDs %v, %d IDs, all unique", processes, slices.Sorted(maps.Keys(workers)), len(all))
	})
}

func parseIDs(t *testing.T, out string) []int64 {
	t.Helper()
	fields := strings.Fields(out)
	ids := make([]int64, len(fields))
	for i, f := range fields {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		ids[i] = id
	}
	return ids
}
