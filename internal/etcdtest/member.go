package etcdtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// healthKey is the key WaitHealthy reads; no test needs to write it.
const healthKey = "etcdtest/health"

// logLines is how many lines of a member's log a failed test shows: the
// election and the error before the end, not the whole start-up.
const logLines = 30

// Member is one etcd process of a Cluster, with its own name, ports and
// data directory, which it keeps across Kill, Stop and Restart. Kill, Stop,
// Restart, Pause and Resume signal the process by its ID and fail the test
// if the member is not in the state they need.
type Member struct {
	c          *Cluster
	i          int    // index in c.members
	name       string // --name: m0, m1, ...
	dir        string // holds data/ and etcd.log
	clientPort int
	peerPort   int

	// proc is the member's process: nil before its first start and after
	// Kill or Stop. paused says proc was sent SIGSTOP and no SIGCONT since.
	// Both are guarded by c.mu.
	proc   *process
	paused bool
}

// process is one run of a member's etcd.
type process struct {
	cmd  *exec.Cmd
	exit chan struct{} // closed once cmd has exited
	err  error         // cmd.Wait's error: written before exit closes, read after
}

// exited says whether the process has exited.
func (p *process) exited() bool {
	select {
	case <-p.exit:
		return true
	default:
		return false
	}
}

// signal sends sig to the process. A process that has exited is no error:
// whoever signals it wants it to end or is about to learn that it has.
func (p *process) signal(sig syscall.Signal) error {
	err := p.cmd.Process.Signal(sig)
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}

// Endpoint returns the member's client URL, http://127.0.0.1:PORT.
func (m *Member) Endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(m.clientPort) }

// peerURL returns the URL the other members reach the member at.
func (m *Member) peerURL() string { return "http://127.0.0.1:" + strconv.Itoa(m.peerPort) }

// logPath returns the path of the member's log, which every run appends to.
func (m *Member) logPath() string { return filepath.Join(m.dir, "etcd.log") }

// index returns the member's index in its cluster.
func (m *Member) index() int { return m.i }

// PID returns the process ID of the member's etcd, or 0 after Kill or Stop.
func (m *Member) PID() int {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	if m.proc == nil {
		return 0
	}
	return m.proc.cmd.Process.Pid
}

// start runs the member's etcd with --initial-cluster-state state: "new"
// for a cluster's first start, "existing" for a restart.
func (m *Member) start(state string) {
	t := m.c.t
	t.Helper()
	log, err := os.OpenFile(m.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatalf("etcdtest: member %s: %v", m.name, err)
	}
	defer log.Close()
	cmd := exec.Command(m.c.bin, m.flags(state)...)
	cmd.Env = environ()
	cmd.Stdout, cmd.Stderr = log, log
	// The cleanup ends the process; Pdeathsig ends it too when the test
	// binary dies without cleaning up, as when -timeout panics.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("etcdtest: start member %s: %s: %v", m.name, cmd, err)
	}
	p := &process{cmd: cmd, exit: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exit)
	}()
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	m.proc, m.paused = p, false
}

// flags returns etcd's command line for the member.
func (m *Member) flags(state string) []string {
	return []string{
		"--name=" + m.name,
		"--data-dir=" + filepath.Join(m.dir, "data"),
		"--listen-client-urls=" + m.Endpoint(),
		"--advertise-client-urls=" + m.Endpoint(),
		"--listen-peer-urls=" + m.peerURL(),
		"--initial-advertise-peer-urls=" + m.peerURL(),
		"--initial-cluster=" + m.c.initialCluster(),
		"--initial-cluster-token=" + m.c.token,
		"--initial-cluster-state=" + state,
		"--heartbeat-interval=" + strconv.Itoa(heartbeatMillis),
		"--election-timeout=" + strconv.Itoa(electionMillis),
		// Standard error goes to the member's log file.
		"--logger=zap",
		"--log-outputs=stderr",
	}
}

// environ returns this process's environment without its ETCD_ variables:
// etcd reads its configuration from them as well as from flags, and fails
// where one names a flag it is also given, so a developer's ETCD_DATA_DIR
// must not reach a throwaway member. etcd 3.4 runs on an architecture other
// than amd64 only where ETCD_UNSUPPORTED_ARCH names it.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ETCD_") {
			env = append(env, kv)
		}
	}
	if runtime.GOARCH != "amd64" {
		env = append(env, "ETCD_UNSUPPORTED_ARCH="+runtime.GOARCH)
	}
	return env
}

// running returns the member's process, failing the test, which wanted to
// do, if the member does not run.
func (m *Member) running(do string) *process {
	t := m.c.t
	t.Helper()
	m.c.mu.Lock()
	p := m.proc
	m.c.mu.Unlock()
	switch {
	case p == nil:
		t.Fatalf("etcdtest: %s member %s: it does not run", do, m.name)
	case p.exited():
		t.Fatalf("etcdtest: %s member %s: pid %d exited by itself: %v", do, m.name, p.cmd.Process.Pid, p.err)
	}
	return p
}

// signal sends sig to the member's running process, failing the test if it
// can not.
func (m *Member) signal(p *process, sig syscall.Signal) {
	m.c.t.Helper()
	if err := p.signal(sig); err != nil {
		m.c.t.Fatalf("etcdtest: %v to member %s (pid %d): %v", sig, m.name, p.cmd.Process.Pid, err)
	}
}

// wait waits up to timeout for p, sent the signal after, to exit, and
// forgets it.
func (m *Member) wait(p *process, timeout time.Duration, after syscall.Signal) {
	m.c.t.Helper()
	select {
	case <-p.exit:
	case <-time.After(timeout):
		m.c.t.Fatalf("etcdtest: member %s (pid %d) still runs %v after %v", m.name, p.cmd.Process.Pid, timeout, after)
	}
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	m.proc, m.paused = nil, false
}

// Kill kills the member's process (SIGKILL), as a crash would, paused or
// not, and waits until it has exited.
func (m *Member) Kill() {
	m.c.t.Helper()
	p := m.running("kill")
	m.signal(p, syscall.SIGKILL)
	m.wait(p, exitTimeout, syscall.SIGKILL)
}

// Stop shuts the member down cleanly (SIGTERM, after SIGCONT if it is
// paused) and waits until it has exited; a member that takes longer than
// 5 s is killed.
func (m *Member) Stop() {
	m.c.t.Helper()
	p := m.running("stop")
	m.signal(p, syscall.SIGCONT) // a paused process can not act on SIGTERM
	m.signal(p, syscall.SIGTERM)
	select {
	case <-p.exit:
	case <-time.After(stopGrace):
		m.signal(p, syscall.SIGKILL)
	}
	m.wait(p, exitTimeout, syscall.SIGKILL)
}

// Restart starts the member again after Kill or Stop, or after it exited by
// itself, with its name, ports and data directory: it rejoins the cluster
// it left. Restart does not wait for the member to rejoin or the cluster
// to have a leader; WaitHealthy does.
func (m *Member) Restart() {
	t := m.c.t
	t.Helper()
	m.c.mu.Lock()
	p := m.proc
	m.c.mu.Unlock()
	if p != nil && !p.exited() {
		t.Fatalf("etcdtest: restart member %s: it still runs as pid %d; Kill or Stop it first", m.name, p.cmd.Process.Pid)
	}
	m.start("existing")
}

// Pause stops the member's process (SIGSTOP) and waits until the kernel
// has stopped it: its connections stay open and nothing on them is
// answered, as behind a network partition.
func (m *Member) Pause() {
	t := m.c.t
	t.Helper()
	p := m.running("pause")
	m.signal(p, syscall.SIGSTOP)
	m.c.mu.Lock()
	m.paused = true
	m.c.mu.Unlock()
	pid := p.cmd.Process.Pid
	deadline := time.Now().Add(exitTimeout)
	for state(pid) != 'T' {
		if time.Now().After(deadline) {
			t.Fatalf("etcdtest: member %s (pid %d) is in state %q, not stopped, %v after SIGSTOP", m.name, pid, state(pid), exitTimeout)
		}
		time.Sleep(time.Millisecond)
	}
}

// state returns the state letter /proc gives for process pid ('R', 'S',
// 'T' for stopped, ...), or 0 if it can not be read.
func state(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces; the state follows
	// its closing parenthesis.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) == 0 || f[0] == "" {
		return 0
	}
	return f[0][0]
}

// Resume lets a paused member run again (SIGCONT).
func (m *Member) Resume() {
	m.c.t.Helper()
	p := m.running("resume")
	m.signal(p, syscall.SIGCONT)
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	m.paused = false
}

// status asks the member alone for its status, within probeTimeout.
func (m *Member) status(ctx context.Context) (*clientv3.StatusResponse, error) {
	cli, err := newClient(m.Endpoint())
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	return cli.Status(ctx, m.Endpoint())
}

// read reads healthKey, linearizably, through the member alone, within
// probeTimeout: the member answers only while it is in touch with a leader.
func (m *Member) read(ctx context.Context) error {
	cli, err := newClient(m.Endpoint())
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if _, err := cli.Get(ctx, healthKey); err != nil {
		return fmt.Errorf("linearizable read through member %s (%s): %w", m.name, m.Endpoint(), err)
	}
	return nil
}

// logTail returns the last logLines lines of the member's log.
func (m *Member) logTail() string {
	b, err := os.ReadFile(m.logPath())
	if err != nil {
		return err.Error()
	}
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) > logLines+1 {
		lines = lines[len(lines)-logLines-1:]
	}
	return strings.Join(lines, "")
}
