// Package faulttest puts network faults between a client and a server, as
// net/http/httptest puts a server in a test: a Proxy listens on a port of
// its own and forwards every connection to its target, and the test
// switches it, while connections are open, between passing everything,
// a full partition, lost replies, latency, a throttle and resets.
//
//	p := faulttest.Start(t, "127.0.0.1:3306")
//	db := open(p.Addr()) // the holder dials the proxy
//	p.Blackhole()        // cut it off, its process still running
//	p.Pass()             // and heal
//
// A mode applies to the connections open when it is set and to those
// accepted later, until the next mode replaces it. A Proxy holds bytes it
// may not forward yet, as TCP retransmits them through a partition: what a
// blackhole held arrives once it heals, and a connection's end (its FIN)
// waits with the bytes before it. The package needs nothing beyond the
// standard library.
package faulttest

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// mode is one of the faults a Proxy applies.
type mode int

const (
	pass        mode = iota // forward every byte at once
	blackhole               // forward nothing either way, holding it
	dropReplies             // forward the client's bytes, discard the server's
	delay                   // forward every chunk after fault.d
	throttle                // forward at most fault.rate bytes a second each way
	reset                   // reset every connection, and each new one
)

// fault is a mode and its parameter.
type fault struct {
	mode mode
	d    time.Duration // delay's
	rate int           // throttle's, bytes a second
}

// Proxy is a TCP proxy from a port on 127.0.0.1 to a target address whose
// faults a test switches at run time. Its methods are safe for concurrent
// use.
type Proxy struct {
	target string
	ln     net.Listener
	wg     sync.WaitGroup // every goroutine the Proxy started
	closed chan struct{}  // closed by Close: every wait ends
	once   sync.Once

	// mu guards the mode, its change channel and the open links. Set
	// writes them; the links' goroutines read the mode before every
	// chunk they forward.
	mu      sync.Mutex
	fault   fault
	changed chan struct{} // closed and replaced at every change of mode
	links   map[*link]struct{}
}

// link is one client connection and the connection to the target that
// serves it.
type link struct {
	client, server net.Conn
	once           sync.Once
	dropped        bool // DropReplies discarded some of the target's bytes; guarded by Proxy.mu
}

// Start returns a Proxy listening on 127.0.0.1 at a free port and
// forwarding connections to target, in mode Pass, closed when t ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{target: target, ln: ln, closed: make(chan struct{}), changed: make(chan struct{}), links: map[*link]struct{}{}}
	p.wg.Go(p.accept)
	t.Cleanup(p.Close)
	return p
}

// Addr returns the host:port the Proxy listens on: what the client dials.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Pass forwards every byte at once, and whatever a fault held.
func (p *Proxy) Pass() { p.set(fault{mode: pass}) }

// Blackhole is a full partition: connections are accepted and kept open,
// and nothing is forwarded either way until the mode changes.
func (p *Proxy) Blackhole() { p.set(fault{mode: blackhole}) }

// DropReplies forwards what clients send and discards what the target
// answers: a statement that commits while its client hears nothing. TCP
// never delivers bytes past a gap, so a connection that lost bytes can
// carry nothing more: the next mode resets each such connection.
func (p *Proxy) DropReplies() { p.set(fault{mode: dropReplies}) }

// Delay forwards each chunk read, either way, d after it arrived: a round
// trip takes 2d longer, at least.
func (p *Proxy) Delay(d time.Duration) { p.set(fault{mode: delay, d: d}) }

// Throttle forwards at most bytesPerSecond bytes a second in each
// direction of each connection; a rate below 1 counts as 1.
func (p *Proxy) Throttle(bytesPerSecond int) {
	p.set(fault{mode: throttle, rate: max(bytesPerSecond, 1)})
}

// Reset closes every connection, on both sides, with a TCP RST, and resets
// each new one as it is accepted, until the mode changes.
func (p *Proxy) Reset() { p.set(fault{mode: reset}) }

// set switches to f, and resets the connections f may not carry on: all
// of them for reset, those that lost bytes for any other mode but
// dropReplies.
func (p *Proxy) set(f fault) {
	p.mu.Lock()
	p.fault = f
	close(p.changed)
	p.changed = make(chan struct{})
	var ends []*link
	for l := range p.links {
		if f.mode == reset || f.mode != dropReplies && l.dropped {
			ends = append(ends, l)
		}
	}
	p.mu.Unlock()
	for _, l := range ends {
		l.end(true)
	}
}

// now returns the mode and a channel closed at its next change.
func (p *Proxy) now() (fault, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fault, p.changed
}

// Close stops listening, closes every connection and waits for every
// goroutine of the Proxy to return. It is idempotent.
func (p *Proxy) Close() {
	p.once.Do(func() {
		close(p.closed)
		p.ln.Close()
		p.mu.Lock()
		for l := range p.links {
			l.end(false)
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
}

// accept serves each connection accepted until Close.
func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // Close closed the listener
		}
		p.wg.Go(func() { p.serve(c) })
	}
}

// serve dials the target for client, once the mode lets a connection
// through (a partition holds it: its SYN would not pass), and forwards
// both ways until either side ends.
func (p *Proxy) serve(client net.Conn) {
	if !p.await(func(f fault) bool { return f.mode != blackhole }) || p.isReset() {
		rst(client)
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		rst(client)
		return
	}
	l := &link{client: client, server: server}
	if !p.track(l) {
		l.end(true)
		return
	}
	p.wg.Go(func() { p.forward(l, l.server, l.client, true) })
	p.forward(l, l.client, l.server, false)
}

// track adds l to the open links, unless the Proxy closed or resets.
func (p *Proxy) track(l *link) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.closed:
		return false
	default:
	}
	if p.fault.mode == reset {
		return false
	}
	p.links[l] = struct{}{}
	return true
}

func (p *Proxy) isReset() bool {
	f, _ := p.now()
	return f.mode == reset
}

// forward copies src to dst, the client's bytes if up, the target's
// otherwise, each chunk as the mode says, and ends l when src ends.
func (p *Proxy) forward(l *link, dst, src net.Conn, up bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.deliver(l, dst, buf[:n], up) {
			l.end(p.isReset())
			break
		}
		if err != nil {
			// The end of a stream waits for the bytes before it, as a
			// FIN does behind a partition.
			p.await(func(f fault) bool { return f.mode != blackhole })
			l.end(p.isReset() || !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF))
			break
		}
	}
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
}

// deliver writes b to dst as the mode says, and reports whether the link
// lives on.
func (p *Proxy) deliver(l *link, dst net.Conn, b []byte, up bool) bool {
	delayed := false
	for len(b) > 0 {
		f, changed := p.now()
		switch {
		case f.mode == reset:
			return false
		case f.mode == blackhole:
			if !p.wait(changed, -1) {
				return false
			}
			continue
		case f.mode == dropReplies && !up:
			if p.drop(l) {
				return true
			}
			continue
		case f.mode == delay && !delayed:
			delayed = true
			if !p.wait(changed, f.d) {
				return false
			}
			continue // the mode may have changed meanwhile
		}
		piece := b
		if f.mode == throttle {
			// A tenth of a second's worth at a time keeps the rate even.
			piece = b[:min(len(b), max(f.rate/10, 1))]
			if !p.wait(changed, time.Duration(len(piece))*time.Second/time.Duration(f.rate)) {
				return false
			}
		}
		if _, err := dst.Write(piece); err != nil {
			return false
		}
		b = b[len(piece):]
	}
	return true
}

// drop marks l as having lost bytes and reports true, while the mode is
// still dropReplies: set, which resets such links, then sees the mark.
func (p *Proxy) drop(l *link) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	l.dropped = p.fault.mode == dropReplies
	return l.dropped
}

// wait waits for d, or until changed closes where d < 0, and reports
// whether the Proxy is still open. A change of mode ends a wait early.
func (p *Proxy) wait(changed <-chan struct{}, d time.Duration) bool {
	var after <-chan time.Time // nil, which never fires, where d < 0
	if d >= 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		after = timer.C
	}
	select {
	case <-p.closed:
		return false
	case <-changed:
	case <-after:
	}
	return true
}

// await waits until ok(mode) and reports whether the Proxy is still open.
func (p *Proxy) await(ok func(fault) bool) bool {
	for {
		f, changed := p.now()
		if ok(f) {
			return true
		}
		if !p.wait(changed, -1) {
			return false
		}
	}
}

// end closes both connections of l, once, with an RST where hard.
func (l *link) end(hard bool) {
	l.once.Do(func() {
		if hard {
			rst(l.client)
			rst(l.server)
			return
		}
		l.client.Close()
		l.server.Close()
	})
}

// rst closes c with a TCP RST rather than a FIN.
func rst(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}
