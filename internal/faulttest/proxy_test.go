package faulttest

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/leaktest"
)

// The longest any byte the mode lets through takes to arrive, on a loaded
// machine; and how long a test watches for bytes the mode holds, which a
// correct Proxy never lets through however long it waits.
const (
	arrives = 10 * time.Second
	watched = 200 * time.Millisecond
)

// echo is a server that sends back what it receives, and counts it.
type echo struct {
	ln       net.Listener
	received atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

// startEcho returns an echo server, closed with its connections when t
// ends.
func startEcho(t *testing.T) *echo {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &echo{ln: ln}
	e.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			e.mu.Lock()
			e.conns = append(e.conns, c)
			e.mu.Unlock()
			e.wg.Go(func() { e.serve(c) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		e.mu.Lock()
		for _, c := range e.conns {
			c.Close()
		}
		e.mu.Unlock()
		e.wg.Wait()
	})
	return e
}

func (e *echo) serve(c net.Conn) {
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		e.received.Add(int64(n))
		if n > 0 {
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// dial connects to p, closed when t ends.
func dial(t *testing.T, p *Proxy) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// send writes msg to c.
func send(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatalf("write %q: %v", msg, err)
	}
}

// expect reads len(want) bytes from c within arrives and fails t unless
// they are want.
func expect(t *testing.T, c net.Conn, want string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(arrives))
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != want {
		t.Fatalf("read %q, %v; want %q", got, err, want)
	}
}

// silent fails t if c receives anything within watched.
func silent(t *testing.T, c net.Conn, why string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(watched))
	buf := make([]byte, 64)
	if n, err := c.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%s: read %q, %v; want nothing", why, buf[:n], err)
	}
}

func TestPass(t *testing.T) {
	p := Start(t, startEcho(t).ln.Addr().String())
	c := dial(t, p)
	send(t, c, "hello")
	expect(t, c, "hello")
}

// TestBlackhole: nothing passes either way, on a connection open before
// the partition and on one opened during it, and what was held arrives
// once it heals.
func TestBlackhole(t *testing.T) {
	e := startEcho(t)
	p := Start(t, e.ln.Addr().String())
	before := dial(t, p)
	send(t, before, "a")
	expect(t, before, "a")

	p.Blackhole()
	send(t, before, "held")
	during := dial(t, p) // the kernel accepts it; the target never sees it
	send(t, during, "new")
	silent(t, before, "blackholed")
	silent(t, during, "opened in a blackhole")
	if got := e.received.Load(); got != 1 {
		t.Fatalf("the target received %d bytes, want 1: the blackhole let bytes through", got)
	}

	p.Pass()
	expect(t, before, "held")
	expect(t, during, "new")
}

// TestDropReplies: the target receives what the client sends, and the
// client hears nothing; once the mode changes, that connection, which lost
// bytes, is reset, and a new one is answered.
func TestDropReplies(t *testing.T) {
	e := startEcho(t)
	p := Start(t, e.ln.Addr().String())
	c := dial(t, p)
	p.DropReplies()
	send(t, c, "lost")
	for deadline := time.Now().Add(arrives); e.received.Load() < 4; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the target received %d bytes in %v, want 4", e.received.Load(), arrives)
		}
	}
	silent(t, c, "replies dropped")
	p.Pass()
	checkReset(t, c)
	after := dial(t, p)
	send(t, after, "heard")
	expect(t, after, "heard")
}

// checkReset fails t unless a read on c finds it reset.
func checkReset(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(arrives))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("read on a reset connection: %v, want %v", err, syscall.ECONNRESET)
	}
}

// TestDelay: a round trip through a delay of d takes 2d at least.
func TestDelay(t *testing.T) {
	p := Start(t, startEcho(t).ln.Addr().String())
	c := dial(t, p)
	const d = 100 * time.Millisecond
	p.Delay(d)
	start := time.Now()
	send(t, c, "slow")
	expect(t, c, "slow")
	if took := time.Since(start); took < 2*d {
		t.Errorf("a round trip through a delay of %v took %v, want %v at least", d, took, 2*d)
	}
}

// TestThrottle: n bytes at rate bytes a second take n/rate seconds at
// least, one way.
func TestThrottle(t *testing.T) {
	p := Start(t, startEcho(t).ln.Addr().String())
	c := dial(t, p)
	const n, rate = 10_000, 20_000
	p.Throttle(rate)
	msg := string(bytes.Repeat([]byte("x"), n))
	start := time.Now()
	send(t, c, msg)
	expect(t, c, msg)
	if took, least := time.Since(start), n*time.Second/rate; took < least {
		t.Errorf("%d bytes at %d bytes a second took %v, want %v at least", n, rate, took, least)
	}
}

// TestReset: an open connection is reset, and so is one opened while the
// mode lasts; once it changes, connections work again.
func TestReset(t *testing.T) {
	p := Start(t, startEcho(t).ln.Addr().String())
	before := dial(t, p)
	send(t, before, "a")
	expect(t, before, "a")

	p.Reset()
	checkReset(t, before)
	// The kernel may complete the handshake before the Proxy resets the
	// connection, or find it reset by then.
	if c, err := net.Dial("tcp", p.Addr()); err == nil {
		checkReset(t, c)
		c.Close()
	} else if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("dial in mode Reset: %v, want %v", err, syscall.ECONNRESET)
	}

	p.Pass()
	after := dial(t, p)
	send(t, after, "b")
	expect(t, after, "b")
}

// TestCloseEndsGoroutines: clients keep sending while the modes change
// under them; Close returns with no goroutine of the Proxy left, bytes
// held in a blackhole and a connection waiting to be dialled included.
func TestCloseEndsGoroutines(t *testing.T) {
	p := Start(t, startEcho(t).ln.Addr().String())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { chatter(p.Addr(), stop) })
	}
	for _, set := range []func(){p.Blackhole, p.Pass, func() { p.Delay(time.Millisecond) }, p.DropReplies,
		func() { p.Throttle(1000) }, p.Reset, p.Pass, p.Blackhole} {
		set()
		time.Sleep(20 * time.Millisecond) // let the clients send under each mode
	}
	held := dial(t, p)
	send(t, held, "held")
	p.Close()
	close(stop)
	wg.Wait()
	for _, fn := range []string{"accept", "serve", "forward"} {
		if n := leaktest.Settle("github.com/seed4d941b13/uidgen/internal/faulttest.(*Proxy)."+fn, arrives); n > 0 {
			t.Errorf("%d goroutines in (*Proxy).%s after Close", n, fn)
		}
	}
	p.Close() // idempotent
}

// chatter dials addr and sends and reads until stop closes, dialling
// again whenever a connection fails.
func chatter(addr string, stop <-chan struct{}) {
	buf := make([]byte, 16)
	for {
		select {
		case <-stop:
			return
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			continue
		}
		for err == nil {
			c.SetDeadline(time.Now().Add(50 * time.Millisecond))
			if _, err = c.Write([]byte("ping")); err == nil {
				_, err = c.Read(buf)
			}
		}
		c.Close()
	}
}
