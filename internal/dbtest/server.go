package dbtest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serverUp bounds how long a throwaway server may take to answer after it
// starts, crash recovery after Kill included.
const serverUp = 60 * time.Second

// Throwaway is a database server of one test's own, for tests that stop,
// kill or pause the database under a client: the shared servers are never
// touched. It listens on a free port of 127.0.0.1, where root (MySQL) or
// postgres (PostgreSQL) connects without a password to the database test,
// and keeps its data in a temporary directory; the test's end kills it and
// removes the directory.
//
// Each signal goes by process ID to the process the test started and to
// its descendants: a PostgreSQL server serves each connection from a child
// process in a session of its own, which must pause and die with it. A
// Throwaway is used by the test's goroutine only.
type Throwaway struct {
	t    testing.TB
	e    engine
	dir  string
	port int
	cmd  *exec.Cmd     // nil while stopped
	exit chan struct{} // closed when cmd has exited
}

// engine is what differs between the servers a Throwaway runs.
type engine struct {
	kind string
	// install fills the data directory; command runs the server on it.
	install func(e engine, dir string) *exec.Cmd
	command func(e engine, dir string, port int) *exec.Cmd
	// binaries are the programs install and command run.
	binaries []string
	stop     syscall.Signal // a clean shutdown that does not wait for clients
	// createTest creates the database test unless it exists.
	createTest func(ctx context.Context, db *sql.DB) error
	// cred runs the server as an unprivileged user where it refuses root.
	cred *syscall.Credential
}

// Start installs a fresh data directory for a server of kind and starts the
// server on it. It needs the server's binaries (MariaDB's in /usr/sbin or on
// $PATH, PostgreSQL's in /usr/lib/postgresql/*/bin or on $PATH, and a
// postgres user to run them as root): without them the test fails in CI and
// skips elsewhere. Under -short it skips the test: the fast loop starts no
// server of its own (docs/testing.md).
func Start(t testing.TB, kind string) *Throwaway {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs a throwaway %s server of its own, to stop, kill or pause; runs in the full suite (without -short)", kind)
	}
	e, err := engineOf(kind)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("a throwaway %s server needs its binaries in CI: %v", kind, err)
		}
		t.Skipf("needs %s's binaries to start a throwaway server: %v", kind, err)
	}
	// A socket's path must fit in 108 bytes, which a test's TempDir,
	// named after the test, need not.
	dir, err := os.MkdirTemp("", kind)
	if err != nil {
		t.Fatal(err)
	}
	s := &Throwaway{t: t, e: e, dir: dir}
	t.Cleanup(s.remove)
	if e.cred != nil {
		if err := os.Chown(dir, int(e.cred.Uid), int(e.cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := e.install(e, dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	s.port = freePort(t)
	s.start()
	return s
}

// engineOf returns the engine of kind, or why it can not run here.
func engineOf(kind string) (engine, error) {
	if !slices.Contains(ServerKinds, kind) {
		return engine{}, fmt.Errorf("no server of kind %q: want one of %v", kind, ServerKinds)
	}
	e := mariadb
	if kind == "postgres" {
		e = postgres
		if os.Geteuid() == 0 {
			u, err := user.Lookup("postgres")
			if err != nil {
				return e, err
			}
			uid, _ := strconv.Atoi(u.Uid)
			gid, _ := strconv.Atoi(u.Gid)
			e.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		}
	}
	for _, b := range e.binaries {
		if _, err := lookPath(b); err != nil {
			return e, err
		}
	}
	return e, nil
}

var mariadb = engine{
	kind:     "mysql",
	binaries: []string{"mariadb-install-db", "mariadbd"},
	stop:     syscall.SIGTERM,
	createTest: func(ctx context.Context, db *sql.DB) error {
		_, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS test")
		return err
	},
	install: func(e engine, dir string) *exec.Cmd {
		return exec.Command(mustLook("mariadb-install-db"), "--no-defaults", "--auth-root-authentication-method=normal",
			"--datadir="+filepath.Join(dir, "data"), "--user=root", "--skip-test-db")
	},
	command: func(e engine, dir string, port int) *exec.Cmd {
		return exec.Command(mustLook("mariadbd"), "--no-defaults", "--datadir="+filepath.Join(dir, "data"),
			"--port="+strconv.Itoa(port), "--bind-address=127.0.0.1", "--socket="+filepath.Join(dir, "sock"),
			"--pid-file="+filepath.Join(dir, "pid"), "--user=root", "--skip-name-resolve", "--skip-log-bin",
			"--innodb-buffer-pool-size=16M")
	},
}

var postgres = engine{
	kind:     "postgres",
	binaries: []string{"initdb", "postgres"},
	stop:     syscall.SIGINT, // "fast" shutdown; SIGTERM waits for every client to leave
	createTest: func(ctx context.Context, db *sql.DB) error {
		var n int
		err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_database WHERE datname = 'test'").Scan(&n)
		if err == nil && n == 0 {
			_, err = db.ExecContext(ctx, "CREATE DATABASE test")
		}
		return err
	},
	install: func(e engine, dir string) *exec.Cmd {
		return exec.Command(mustLook("initdb"), "--pgdata="+filepath.Join(dir, "data"), "--username=postgres",
			"--auth=trust", "--encoding=UTF8", "--no-sync")
	},
	command: func(e engine, dir string, port int) *exec.Cmd {
		return exec.Command(mustLook("postgres"), "-D", filepath.Join(dir, "data"), "-p", strconv.Itoa(port),
			"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+dir,
			"-c", "fsync=off", "-c", "shared_buffers=16MB")
	},
}

// lookPath finds name on $PATH, in /usr/sbin, where Debian puts mariadbd,
// or in /usr/lib/postgresql/*/bin, where Debian puts PostgreSQL's servers.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath(filepath.Join("/usr/sbin", name)); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob(filepath.Join("/usr/lib/postgresql/*/bin", name))
	if len(matches) > 0 {
		return matches[len(matches)-1], nil
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// mustLook returns the path engineOf found for name.
func mustLook(name string) string {
	p, _ := lookPath(name)
	return p
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (s *Throwaway) path(name string) string { return filepath.Join(s.dir, name) }

// Server returns the server's test database.
func (s *Throwaway) Server() Server {
	addr := "127.0.0.1:" + strconv.Itoa(s.port)
	if s.e.kind == "postgres" {
		return Server{Kind: "postgres", DSN: "postgres://postgres@" + addr + "/test?sslmode=disable&connect_timeout=5"}
	}
	return Server{Kind: "mysql", DSN: "root@tcp(" + addr + ")/test"}
}

// start runs the server on the data directory and waits until it answers,
// creating the test database the first time.
func (s *Throwaway) start() {
	s.t.Helper()
	logFile, err := os.OpenFile(s.path("server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	defer logFile.Close()
	cmd := s.e.command(s.e, s.dir, s.port)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.e.cred}
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start %s: %v", cmd, err)
	}
	s.cmd, s.exit = cmd, make(chan struct{})
	go func(exit chan struct{}) {
		cmd.Wait()
		close(exit)
	}(s.exit)

	admin := s.Server()
	if s.e.kind == "postgres" {
		admin = admin.With("", "", "", "postgres") // test may not exist yet
	} else {
		admin = admin.With("", "", "", "mysql")
	}
	db, err := admin.open()
	if err != nil {
		s.t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), serverUp)
	defer cancel()
	for {
		err := s.e.createTest(ctx, db)
		if err == nil {
			return
		}
		select {
		case <-s.exit:
			s.t.Fatalf("%s exited before it answered: %v\n%s", s.e.kind, err, s.logTail())
		case <-ctx.Done():
			s.t.Fatalf("%s did not answer within %v: %v\n%s", s.e.kind, serverUp, err, s.logTail())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// logTail returns the end of the server's log, to say why it failed.
func (s *Throwaway) logTail() []byte {
	b, _ := os.ReadFile(s.path("server.log"))
	if i := len(b) - 2000; i > 0 {
		b = b[bytes.IndexByte(b[i:], '\n')+i+1:]
	}
	return b
}

// signal sends sig to the server's processes, children first, so that a
// stopped server has no child left running. Before a SIGKILL the first
// process is stopped, and only then are its children listed: PostgreSQL's
// postmaster, seeing a child killed, would otherwise fork new ones that
// the list lacks, which outlive it holding its shared memory, and the
// restarted server would refuse to start.
func (s *Throwaway) signal(sig syscall.Signal) {
	s.t.Helper()
	if s.cmd == nil {
		s.t.Fatalf("signal %v: the server is not running", sig)
	}
	if sig == syscall.SIGKILL {
		if err := syscall.Kill(s.cmd.Process.Pid, syscall.SIGSTOP); err != nil && !errors.Is(err, syscall.ESRCH) {
			s.t.Fatalf("stop %s process %d: %v", s.e.kind, s.cmd.Process.Pid, err)
		}
	}
	pids := append(descendants(s.cmd.Process.Pid), s.cmd.Process.Pid)
	for _, pid := range pids {
		if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			s.t.Fatalf("signal %v to %s process %d: %v", sig, s.e.kind, pid, err)
		}
	}
}

// descendants returns the process IDs of pid's children, theirs, and so on,
// read from /proc.
func descendants(pid int) []int {
	children := make(map[int][]int)
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the process has exited
		}
		// The command name, in parentheses, may hold spaces; the state
		// and the parent's ID follow its closing parenthesis.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 2 {
			continue
		}
		child, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		parent, _ := strconv.Atoi(f[1])
		children[parent] = append(children[parent], child)
	}
	var all []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			walk(c)
			all = append(all, c)
		}
	}
	walk(pid)
	return all
}

// end sends sig, to the server's first process alone or to all of them,
// and waits for the server to exit.
func (s *Throwaway) end(sig syscall.Signal, all bool) {
	s.t.Helper()
	s.signal(syscall.SIGCONT) // a paused server can not shut down
	if all {
		s.signal(sig)
	} else if err := s.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		s.t.Fatalf("signal %v to %s (pid %d): %v", sig, s.e.kind, s.cmd.Process.Pid, err)
	}
	select {
	case <-s.exit:
	case <-time.After(serverUp):
		s.t.Fatalf("%s (pid %d) still runs %v after %v\n%s", s.e.kind, s.cmd.Process.Pid, serverUp, sig, s.logTail())
	}
	s.cmd = nil
}

// Stop shuts the server down cleanly, closing its clients' connections, and
// waits until it has exited.
func (s *Throwaway) Stop() { s.t.Helper(); s.end(s.e.stop, false) }

// Kill kills the server's processes at once, as a crash would, and waits
// until it has exited.
func (s *Throwaway) Kill() { s.t.Helper(); s.end(syscall.SIGKILL, true) }

// Pause stops the server's processes (SIGSTOP): connections stay open and
// statements get no answer, as behind a network partition. It returns once
// every thread of them has stopped: kill(2) returns before a thread
// running on another CPU takes the signal, and on a loaded machine a
// statement sent just after it could still commit.
func (s *Throwaway) Pause() {
	s.t.Helper()
	s.signal(syscall.SIGSTOP)
	deadline := time.Now().Add(serverUp)
	for _, pid := range append(descendants(s.cmd.Process.Pid), s.cmd.Process.Pid) {
		for !stopped(pid) {
			if time.Now().After(deadline) {
				s.t.Fatalf("%s process %d has not stopped %v after SIGSTOP", s.e.kind, pid, serverUp)
			}
			time.Sleep(time.Millisecond) // polls /proc; the deadline bounds it
		}
	}
}

// stopped reports whether every thread of pid is stopped (state T) or
// gone, from /proc.
func stopped(pid int) bool {
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*/stat", pid))
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the thread has exited
		}
		if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] != "T" && f[0] != "t" && f[0] != "Z" && f[0] != "X" {
			return false
		}
	}
	return true
}

// Resume lets a paused server run again (SIGCONT).
func (s *Throwaway) Resume() { s.t.Helper(); s.signal(syscall.SIGCONT) }

// Restart stops the server if it runs and starts it again on the same port
// and data, waiting until it answers.
func (s *Throwaway) Restart() {
	s.t.Helper()
	if s.cmd != nil {
		s.Stop()
	}
	s.start()
}

// remove kills the server if it still runs and removes its directory.
func (s *Throwaway) remove() {
	if s.cmd != nil {
		s.signal(syscall.SIGCONT)
		s.signal(syscall.SIGKILL)
		<-s.exit
		s.cmd = nil
	}
	if err := os.RemoveAll(s.dir); err != nil {
		s.t.Errorf("remove %s: %v", s.dir, err)
	}
}

// StartStandby starts a synchronous standby of primary, a throwaway
// PostgreSQL: a pg_basebackup -R copy of its data, streaming from it, and
// named in the primary's synchronous_standby_names, so that the primary
// acknowledges a commit only once the standby has it. Promote makes it the
// primary: a failover that loses no acknowledged write. The test's end
// kills it and removes its directory, as Start's.
func StartStandby(t testing.TB, primary *Throwaway) *Throwaway {
	t.Helper()
	if primary.e.kind != "postgres" {
		t.Fatalf("a standby needs a PostgreSQL primary, not %s", primary.e.kind)
	}
	dir, err := os.MkdirTemp("", "standby")
	if err != nil {
		t.Fatal(err)
	}
	s := &Throwaway{t: t, e: primary.e, dir: dir}
	t.Cleanup(s.remove)
	if c := s.e.cred; c != nil {
		if err := os.Chown(dir, int(c.Uid), int(c.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	// The server's own pg_basebackup, beside the real postgres binary: not
	// Debian's wrapper on $PATH, which picks a version by the clusters it
	// knows of.
	server, err := filepath.EvalSymlinks(mustLook("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(filepath.Dir(server), "pg_basebackup"),
		"--host=127.0.0.1", "--port="+strconv.Itoa(primary.port), "--username=postgres",
		"--pgdata="+filepath.Join(dir, "data"), "--write-recovery-conf", "--wal-method=stream", "--no-sync")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.e.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	s.port = freePort(t)
	s.start()

	db := primary.Server().Open(t)
	ctx, cancel := context.WithTimeout(context.Background(), serverUp)
	defer cancel()
	for _, q := range []string{"ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for {
		var sync int
		err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_stat_replication WHERE sync_state = 'sync'").Scan(&sync)
		if err == nil && sync == 1 {
			return s
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the standby did not become synchronous within %v: %v\n%s", serverUp, err, s.logTail())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Promote makes a standby the primary (pg_promote), and waits until it
// takes writes.
func (s *Throwaway) Promote() {
	s.t.Helper()
	db := s.Server().Open(s.t)
	ctx, cancel := context.WithTimeout(context.Background(), serverUp)
	defer cancel()
	var done bool
	if err := db.QueryRowContext(ctx, "SELECT pg_promote(true, 60)").Scan(&done); err != nil || !done {
		s.t.Fatalf("pg_promote: %v, %v\n%s", done, err, s.logTail())
	}
}

// Port returns the port the server listens on, for a URL that names several
// servers.
func (s *Throwaway) Port() int { return s.port }
