// Package redistest starts throwaway redis-server processes (Debian's
// redis-server) on free ports, in temporary directories, for tests that
// lease worker IDs from Redis and for tests that kill, pause and restart
// the server under its clients. Each server is ended by its process ID when
// its test ends; the shared servers of the machine are never touched.
package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// startTimeout bounds how long a server may take to answer PING after it
// starts: reading a large append-only file back takes a while on a loaded
// machine.
const startTimeout = 30 * time.Second

// Server is one redis-server process with its own port and directory,
// which it keeps across Kill and Restart, so a restart reads back the
// append-only file. Its methods fail the test when the process is not in
// the state they need.
type Server struct {
	t    testing.TB
	dir  string
	port int
	conf string // the config file's path

	mu   sync.Mutex
	cmd  *exec.Cmd     // nil once killed and not restarted
	exit chan struct{} // closed once cmd has exited
}

// Start starts a server with an append-only file synced at every write
// (appendfsync always), the deployment a lease counts on, and the extra
// config lines given, and waits for it to answer. It skips the test where
// redis-server is not installed, unless $CI is set, where it fails: .ci/run
// installs it.
func Start(t testing.TB, config ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redis-server is not installed: .ci/run installs Debian's redis-server: %v", err)
		}
		t.Skipf("needs redis-server (apt-get install redis-server): %v", err)
	}
	s := &Server{t: t, dir: t.TempDir(), port: freePort(t)}
	s.conf = filepath.Join(s.dir, "redis.conf")
	lines := append([]string{
		"port " + strconv.Itoa(s.port), "bind 127.0.0.1", "dir " + s.dir, "logfile " + filepath.Join(s.dir, "redis.log"),
		"appendonly yes", "appendfsync always", "save \"\"", "daemonize no", "protected-mode no",
	}, config...)
	if err := os.WriteFile(s.conf, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.run(bin)
	t.Cleanup(func() { s.end() })
	return s
}

// freePort returns a port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// run starts the process from the config file and waits for it to answer.
func (s *Server) run(bin string) {
	s.t.Helper()
	cmd := exec.Command(bin, s.conf)
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	exit := make(chan struct{})
	go func() { cmd.Wait(); close(exit) }()
	s.mu.Lock()
	s.cmd, s.exit = cmd, exit
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	c := s.NewClient()
	defer c.Close()
	for c.Ping(ctx).Err() != nil {
		select {
		case <-exit:
			s.t.Fatalf("redis-server on port %d exited at start:\n%s", s.port, s.LogTail())
		case <-ctx.Done():
			s.t.Fatalf("redis-server on port %d did not answer within %v:\n%s", s.port, startTimeout, s.LogTail())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Addr returns the server's address, 127.0.0.1:PORT.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Port returns the server's port.
func (s *Server) Port() int { return s.port }

// URL returns the server's redis:// URL, database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// NewClient returns a client of the server whose contexts bound every
// request, for the caller to close.
func (s *Server) NewClient() *redis.Client { return newClient(s.Addr()) }

func newClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
}

// Client returns a client of the server, closed when the test ends.
func (s *Server) Client(t testing.TB) *redis.Client { return ClientVia(t, s.Addr()) }

// ClientVia returns a client that dials addr, a server or a proxy in
// front of one, closed when the test ends.
func ClientVia(t testing.TB, addr string) *redis.Client {
	c := newClient(addr)
	t.Cleanup(func() { c.Close() })
	return c
}

// PID returns the running process's ID.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		s.t.Fatalf("redis-server on port %d is not running", s.port)
	}
	return s.cmd.Process.Pid
}

// Kill sends SIGKILL and waits for the process to exit: what it had
// acknowledged is in the append-only file, synced at every write.
func (s *Server) Kill() {
	s.t.Helper()
	s.signal(syscall.SIGCONT) // a paused process dies only once it runs
	s.signal(syscall.SIGKILL)
	s.mu.Lock()
	exit := s.exit
	s.cmd = nil
	s.mu.Unlock()
	<-exit
}

// Restart starts the server again, after Kill, from its directory: it
// reads back its append-only file.
func (s *Server) Restart() {
	s.t.Helper()
	s.mu.Lock()
	running := s.cmd != nil
	s.mu.Unlock()
	if running {
		s.t.Fatalf("Restart of redis-server on port %d, which is running", s.port)
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		s.t.Fatal(err)
	}
	s.run(bin)
}

// Pause sends SIGSTOP: the server holds its connections and answers
// nothing, and its keys' TTLs run out only once it runs again.
func (s *Server) Pause() { s.t.Helper(); s.signal(syscall.SIGSTOP) }

// Resume sends SIGCONT.
func (s *Server) Resume() { s.t.Helper(); s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		s.t.Fatalf("signal %v to redis-server on port %d, which is not running", sig, s.port)
	}
	if err := s.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		s.t.Fatalf("signal %v to redis-server on port %d: %v", sig, s.port, err)
	}
}

// end kills the process, if it runs, when the test ends.
func (s *Server) end() {
	s.mu.Lock()
	cmd, exit := s.cmd, s.exit
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGCONT)
	cmd.Process.Kill()
	<-exit
}

// LogTail returns the last lines of the server's log, for a failure's
// message.
func (s *Server) LogTail() string {
	data, err := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return strings.Join(lines[max(len(lines)-20, 0):], "\n")
}
