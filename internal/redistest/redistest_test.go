package redistest_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/redistest"
)

// TestKillRestartPause proves the server does what the fault tests rely
// on: an acknowledged write and a key's TTL survive a SIGKILL and a restart
// from the append-only file, on the same address; a paused server answers
// nothing until it is resumed; and a config line given to Start overrides
// the kit's own.
func TestKillRestartPause(t *testing.T) {
	s := redistest.Start(t, "appendfsync everysec")
	c := s.Client(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if v, err := c.ConfigGet(ctx, "appendfsync").Result(); err != nil || v["appendfsync"] != "everysec" {
		t.Errorf("appendfsync %v (%v), want the config line given, everysec", v, err)
	}
	if err := c.ConfigSet(ctx, "appendfsync", "always").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "k", "v", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}

	pid := s.PID()
	s.Kill()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the killed server's pid %d: kill -0 = %v, want ESRCH", pid, err)
	}
	if err := c.Ping(ctx).Err(); err == nil {
		t.Fatal("PING answered with the server killed")
	}
	s.Restart()
	if v, err := c.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET k after a restart: %q, %v; want v, from the append-only file", v, err)
	}
	if ttl, err := c.TTL(ctx, "k").Result(); err != nil || ttl <= 0 || ttl > time.Hour {
		t.Errorf("TTL of k after a restart: %v, %v; want its hour, running", ttl, err)
	}

	s.Pause()
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	err := c.Ping(short).Err()
	cancelShort()
	if err == nil {
		t.Fatal("PING answered with the server paused")
	}
	s.Resume()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING after Resume: %v", err)
	}
}

// TestCleanupEndsPaused proves no server outlives its test, not even a
// paused one.
func TestCleanupEndsPaused(t *testing.T) {
	var pid int
	t.Run("paused", func(t *testing.T) {
		s := redistest.Start(t)
		pid = s.PID()
		s.Pause()
	})
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the paused server's pid %d after its test: kill -0 = %v, want ESRCH", pid, err)
	}
}
