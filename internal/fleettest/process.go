package fleettest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/idtest"
)

// Process is the test binary re-executed as the uidgen command. Its IDs
// are read from its stdout only as the test asks for them: a test that
// stops reading holds the process mid-run, blocked on a full pipe, with its
// worker ID leased and its reservation renewed.
//
// One goroutine at a time reads, finishes or ends a Process; Signal and
// Pid may be called from any goroutine.
type Process struct {
	// IDs are the IDs read so far, in the order printed: only the
	// goroutine that reads appends to them.
	IDs []int64

	cmd    *exec.Cmd
	out    *bufio.Scanner
	stderr SyncBuffer // written by exec's copying goroutine until Wait returns
	waited bool
	err    error // the exit error, once waited
}

// Start starts the command with args. ctx's end kills it.
func Start(ctx context.Context, args ...string) (*Process, error) {
	cmd, err := Command(ctx, args...)
	if err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd}
	p.cmd.Stderr = &p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewScanner(stdout)
	p.out.Split(wholeLines)
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	return p, nil
}

// wholeLines splits stdout into lines that end in a newline: a process
// killed mid-write leaves a fragment of an ID, which it never printed.
func wholeLines(data []byte, atEOF bool) (advance int, line []byte, err error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF {
		return len(data), nil, nil
	}
	return 0, nil, nil
}

// Pid returns the process's ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stderr returns what the process has written to its stderr so far: all
// of it, once Finish or End has returned. A test that fails before then
// (a process that printed too few IDs) reads what is there.
func (p *Process) Stderr() string { return p.stderr.String() }

// SyncBuffer is a bytes.Buffer that exec's goroutine, copying a child's
// output, may write while the test's goroutine reads it.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Read reads n more IDs, fewer where stdout ends first (io.EOF is not an
// error: Finish says how the process ended).
func (p *Process) Read(n int) error {
	for i := 0; i < n && p.out.Scan(); i++ {
		id, err := strconv.ParseInt(p.out.Text(), 10, 64)
		if err != nil {
			return fmt.Errorf("pid %d, line %d: %w", p.Pid(), len(p.IDs)+1, err)
		}
		p.IDs = append(p.IDs, id)
	}
	return p.out.Err()
}

// Finish reads the rest of stdout and waits for the process; it returns
// the exit error, nil for status 0.
func (p *Process) Finish() error {
	err := p.Read(int(^uint(0) >> 1))
	p.waited, p.err = true, p.cmd.Wait()
	if err != nil {
		return err
	}
	return p.err
}

// Signal sends sig to the process, by its PID.
func (p *Process) Signal(sig syscall.Signal) error {
	return p.cmd.Process.Signal(sig)
}

// KillAfter reads n IDs, then kills the process with SIGKILL, so that it
// gives nothing back, and waits for it. It fails t (so only the test's
// goroutine may call it), naming the process as who, unless the process
// printed n IDs and died of the signal. It returns the time the signal was
// sent.
func (p *Process) KillAfter(t testing.TB, who string, n int) time.Time {
	t.Helper()
	if err := p.Read(n); err != nil || len(p.IDs) < n {
		p.End()
		t.Fatalf("%s printed %d IDs, %v: %s", who, len(p.IDs), err, p.Stderr())
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	var exit *exec.ExitError
	if err := p.Finish(); !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("%s ended with %v, want killed: %s", who, err, p.Stderr())
	}
	return killed
}

// End kills the process if it was not waited for, and waits.
func (p *Process) End() {
	if p.waited {
		return
	}
	p.Signal(syscall.SIGCONT) // a stopped process dies of SIGKILL too, but say so
	p.cmd.Process.Kill()
	p.Finish()
}

// WorkerOf returns the worker ID of the process's IDs, checking them all:
// each carries it, and they increase. It fails t if the process printed no
// ID.
func (p *Process) WorkerOf(t testing.TB, layout uidgen.Layout) int64 {
	t.Helper()
	if len(p.IDs) == 0 {
		t.Fatalf("pid %d printed no ID: %v: %s", p.Pid(), p.err, p.Stderr())
	}
	w := layout.Parse(p.IDs[0]).WorkerID
	idtest.Check(t, idtest.As(layout, w), [][]int64{p.IDs})
	return w
}
