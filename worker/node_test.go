package worker

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

func TestNodeType(t *testing.T) {
	for _, tt := range []struct {
		typ  NodeType
		want string
	}{{Container, "CONTAINER"}, {Actual, "ACTUAL"}, {7, "NodeType(7)"}} {
		if got := tt.typ.String(); got != tt.want {
			t.Errorf("NodeType(%d).String() = %q, want %q", int(tt.typ), got, tt.want)
		}
	}
	if Container != 1 || Actual != 2 {
		t.Errorf("CONTAINER = %d, ACTUAL = %d; Baidu's WorkerNodeType has 1 and 2", Container, Actual)
	}
}

func TestNodeErrors(t *testing.T) {
	long := strings.Repeat("x", columnChars+1)
	tests := []struct {
		name string
		env  map[string]string
		want error
		text string // in the message
	}{
		{"jpaas host without port", map[string]string{"JPAAS_HOST": "h"}, ErrContainerEnv, `JPAAS_HOST="h" is set`},
		{"jpaas http port without host", map[string]string{"JPAAS_HTTP_PORT": "1"}, ErrContainerEnv, `JPAAS_HTTP_PORT="1" is set but JPAAS_HOST`},
		{"jpaas port 8080 without host", map[string]string{"JPAAS_HOST_PORT_8080": "2", "JPAAS_HOST": "  "}, ErrContainerEnv, `JPAAS_HOST_PORT_8080="2" is set but JPAAS_HOST`},
		{"kubernetes without hostname", map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "POD_IP": "10.1.1.1"}, ErrContainerEnv, "HOSTNAME"},
		{"jpaas host too long", map[string]string{"JPAAS_HOST": long, "JPAAS_HTTP_PORT": "1"}, ErrContainerEnv, "HOST_NAME value"},
		{"pod name too long", map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "HOSTNAME": long, "POD_IP": "10.1.1.1"}, ErrContainerEnv, "PORT value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDisposable(nil, WithLookupEnv(envOf(tt.env)))
			n, err := d.node(time.Now())
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("node() = %+v, %v; want an error wrapping %q saying %q", n, err, tt.want, tt.text)
			}
		})
	}
}

func TestHostAddress(t *testing.T) {
	ip := func(s string) net.Addr { return &net.IPNet{IP: net.ParseIP(s)} }
	errNet := errors.New("no interfaces")
	tests := []struct {
		name     string
		addrs    []net.Addr
		addrsErr error
		hostname string
		hostErr  error
		want     string
		wantErr  error
	}{
		{name: "first routable", addrs: []net.Addr{ip("127.0.0.1"), ip("::1"), ip("169.254.0.9"), ip("fe80::1"), ip("0.0.0.0"), ip("192.0.2.2"), ip("10.0.0.1")}, want: "192.0.2.2"},
		{name: "ipv6", addrs: []net.Addr{ip("::1"), ip("fd00::2")}, want: "fd00::2"},
		{name: "not an IP", addrs: []net.Addr{&net.UnixAddr{Name: "/x"}, ip("10.0.0.1")}, want: "10.0.0.1"},
		{name: "loopback only", addrs: []net.Addr{ip("127.0.0.1")}, hostname: "box", want: "box"},
		{name: "interfaces fail", addrsErr: errNet, hostname: "box", want: "box"},
		{name: "nothing", addrsErr: errNet, hostErr: errors.New("no name"), wantErr: ErrNoHost},
		{name: "empty name", addrs: nil, hostname: "", wantErr: ErrNoHost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDisposable(nil)
			d.addrs = func() ([]net.Addr, error) { return tt.addrs, tt.addrsErr }
			d.hostname = func() (string, error) { return tt.hostname, tt.hostErr }
			got, err := d.hostAddress()
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("hostAddress() = %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
			if tt.addrsErr != nil && tt.wantErr != nil && !errors.Is(err, tt.addrsErr) {
				t.Errorf("error %v does not wrap the interfaces' %v", err, tt.addrsErr)
			}
		})
	}
}
