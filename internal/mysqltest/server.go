package mysqltest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// serverUp bounds how long a throwaway server may take to answer after it
// starts, crash recovery after Kill included.
const serverUp = 60 * time.Second

// Server is a throwaway MariaDB server of one test's own, for tests that
// stop, kill or pause the database under a client: the shared server named
// by $UIDGEN_MYSQL_DSN is never touched. It listens on a free port of
// 127.0.0.1, where root connects without a password, and keeps its data in
// a temporary directory; the test's end kills it and removes the directory.
//
// Each signal goes to the server's own process ID. A Server is used by the
// test's goroutine only.
type Server struct {
	t    testing.TB
	dir  string
	port int
	cmd  *exec.Cmd     // nil while stopped
	exit chan struct{} // closed when cmd has exited
}

// StartServer installs a fresh data directory and starts a server on it. It
// needs mariadb-install-db and mariadbd on $PATH (or in /usr/sbin): without
// them the test fails in CI and skips elsewhere.
func StartServer(t testing.TB) *Server {
	t.Helper()
	install, err := lookPath("mariadb-install-db")
	if err == nil {
		_, err = lookPath("mariadbd")
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("a throwaway MariaDB needs its binaries in CI: %v", err)
		}
		t.Skipf("needs MariaDB's binaries to start a throwaway server: %v", err)
	}
	// The socket's path must fit in 108 bytes, which a test's TempDir,
	// named after the test, need not.
	dir, err := os.MkdirTemp("", "mariadb")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, dir: dir}
	t.Cleanup(s.remove)

	out, err := exec.Command(install, "--no-defaults", "--auth-root-authentication-method=normal",
		"--datadir="+s.path("data"), "--user=root", "--skip-test-db").CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	s.port = freePort(t)
	s.start()
	return s
}

// lookPath finds name on $PATH or in /usr/sbin, where Debian puts mariadbd.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return exec.LookPath(filepath.Join("/usr/sbin", name))
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

func (s *Server) path(name string) string { return filepath.Join(s.dir, name) }

// Config returns the DSN of the server's test database, as root.
func (s *Server) Config() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Net = "tcp"
	cfg.Addr = "127.0.0.1:" + strconv.Itoa(s.port)
	cfg.DBName = "test"
	return cfg
}

// start runs mariadbd on the data directory and waits until it answers,
// creating the test database the first time.
func (s *Server) start() {
	s.t.Helper()
	mariadbd, err := lookPath("mariadbd")
	if err != nil {
		s.t.Fatal(err)
	}
	logFile, err := os.OpenFile(s.path("server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(mariadbd, "--no-defaults", "--datadir="+s.path("data"),
		"--port="+strconv.Itoa(s.port), "--bind-address=127.0.0.1", "--socket="+s.path("sock"),
		"--pid-file="+s.path("pid"), "--user=root", "--skip-name-resolve", "--skip-log-bin",
		"--innodb-buffer-pool-size=16M")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start mariadbd: %v", err)
	}
	s.cmd, s.exit = cmd, make(chan struct{})
	go func(exit chan struct{}) {
		cmd.Wait()
		close(exit)
	}(s.exit)

	admin := s.Config()
	admin.DBName = ""
	admin.Timeout = time.Second
	db, err := sql.Open("mysql", admin.FormatDSN())
	if err != nil {
		s.t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), serverUp)
	defer cancel()
	for {
		_, err = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS test")
		if err == nil {
			return
		}
		select {
		case <-s.exit:
			s.t.Fatalf("mariadbd exited before it answered: %v\n%s", err, s.logTail())
		case <-ctx.Done():
			s.t.Fatalf("mariadbd did not answer within %v: %v\n%s", serverUp, err, s.logTail())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// logTail returns the end of the server's log, to say why it failed.
func (s *Server) logTail() []byte {
	b, _ := os.ReadFile(s.path("server.log"))
	if i := len(b) - 2000; i > 0 {
		b = b[bytes.IndexByte(b[i:], '\n')+i+1:]
	}
	return b
}

// signal sends sig to the server's process.
func (s *Server) signal(sig syscall.Signal) {
	s.t.Helper()
	if s.cmd == nil {
		s.t.Fatalf("signal %v: the server is not running", sig)
	}
	if err := s.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		s.t.Fatalf("signal %v to mariadbd (pid %d): %v", sig, s.cmd.Process.Pid, err)
	}
}

// end sends sig and waits for the server to exit.
func (s *Server) end(sig syscall.Signal) {
	s.t.Helper()
	s.signal(syscall.SIGCONT) // a paused server can not shut down
	s.signal(sig)
	select {
	case <-s.exit:
	case <-time.After(serverUp):
		s.t.Fatalf("mariadbd (pid %d) still runs %v after %v\n%s", s.cmd.Process.Pid, serverUp, sig, s.logTail())
	}
	s.cmd = nil
}

// Stop shuts the server down cleanly and waits until it has exited.
func (s *Server) Stop() { s.t.Helper(); s.end(syscall.SIGTERM) }

// Kill kills the server at once, as a crash would, and waits until it has
// exited.
func (s *Server) Kill() { s.t.Helper(); s.end(syscall.SIGKILL) }

// Pause stops the server's process (SIGSTOP): connections stay open and
// statements get no answer, as behind a network partition.
func (s *Server) Pause() { s.t.Helper(); s.signal(syscall.SIGSTOP) }

// Resume lets a paused server run again (SIGCONT).
func (s *Server) Resume() { s.t.Helper(); s.signal(syscall.SIGCONT) }

// Restart stops the server if it runs and starts it again on the same port
// and data, waiting until it answers.
func (s *Server) Restart() {
	s.t.Helper()
	if s.cmd != nil {
		s.Stop()
	}
	s.start()
}

// remove kills the server if it still runs and removes its directory.
func (s *Server) remove() {
	if s.cmd != nil {
		s.cmd.Process.Signal(syscall.SIGCONT)
		s.cmd.Process.Kill()
		<-s.exit
		s.cmd = nil
	}
	if err := os.RemoveAll(s.dir); err != nil {
		s.t.Errorf("remove %s: %v", s.dir, err)
	}
}
