package worker

import (
	"errors"
	"net"
	"regexp"
	"strconv"
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
			n, err := testHost(tt.env).describe(time.Now())
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
			h := host{
				addrs:    func() ([]net.Addr, error) { return tt.addrs, tt.addrsErr },
				hostname: func() (string, error) { return tt.hostname, tt.hostErr },
			}
			got, err := h.address()
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("address() = %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
			if tt.addrsErr != nil && tt.wantErr != nil && !errors.Is(err, tt.addrsErr) {
				t.Errorf("error %v does not wrap the interfaces' %v", err, tt.addrsErr)
			}
		})
	}
}

// nodeNow and nodeAddrs are the clock and interfaces the node cases see.
var (
	nodeNow   = time.Date(2026, 3, 4, 23, 59, 58, 0, time.Local)
	nodeAddrs = []net.Addr{
		&net.IPNet{IP: net.ParseIP("127.0.0.1")},
		&net.IPNet{IP: net.ParseIP("10.9.8.7")},
	}
	actualPort = regexp.MustCompile(`^` + strconv.FormatInt(nodeNow.UnixMilli(), 10) + `-(\d{1,5})$`)
)

// nodeCases are the environments a process may describe itself from, with
// the row each must give. TestDescribe checks them without a database;
// TestAssignWorkerIDRow writes each once to the real server.
var nodeCases = []struct {
	name     string
	env      map[string]string
	typ      NodeType
	host     string
	port     string         // exact, or
	portLike *regexp.Regexp // for ACTUAL's random part
}{
	{name: "jpaas http port",
		env: map[string]string{"JPAAS_HOST": "172.16.1.2", "JPAAS_HTTP_PORT": "8081"},
		typ: Container, host: "172.16.1.2", port: "8081"},
	{name: "jpaas port 8080",
		env: map[string]string{"JPAAS_HOST": "172.16.1.2", "JPAAS_HOST_PORT_8080": "31080"},
		typ: Container, host: "172.16.1.2", port: "31080"},
	{name: "jpaas http port first",
		env: map[string]string{"JPAAS_HOST": "h", "JPAAS_HTTP_PORT": "1", "JPAAS_HOST_PORT_8080": "2"},
		typ: Container, host: "h", port: "1"},
	{name: "jpaas before kubernetes",
		env: map[string]string{"JPAAS_HOST": "h", "JPAAS_HTTP_PORT": "1", "KUBERNETES_SERVICE_HOST": "10.0.0.1", "HOSTNAME": "pod"},
		typ: Container, host: "h", port: "1"},
	{name: "kubernetes pod ip",
		env: map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "HOSTNAME": "api-7d9f-x2x", "POD_IP": "10.244.3.17"},
		typ: Container, host: "10.244.3.17", port: "api-7d9f-x2x"},
	{name: "kubernetes interface address",
		env: map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "HOSTNAME": "api-7d9f-x2x"},
		typ: Container, host: "10.9.8.7", port: "api-7d9f-x2x"},
	{name: "actual",
		env: nil,
		typ: Actual, host: "10.9.8.7", portLike: actualPort},
	{name: "blank is unset",
		env: map[string]string{"JPAAS_HOST": " ", "JPAAS_HTTP_PORT": "", "KUBERNETES_SERVICE_HOST": "\t"},
		typ: Actual, host: "10.9.8.7", portLike: actualPort},
}

// testHost is a host that sees only env and nodeAddrs.
func testHost(env map[string]string) host {
	return host{
		lookupEnv: envOf(env),
		addrs:     func() ([]net.Addr, error) { return nodeAddrs, nil },
		hostname:  func() (string, error) { return "box", nil },
	}
}

// checkNode fails t unless the type, host and port match the case's.
func checkNode(t *testing.T, typ NodeType, host, port string, wantTyp NodeType, wantHost, wantPort string, portLike *regexp.Regexp) {
	t.Helper()
	if typ != wantTyp || host != wantHost {
		t.Errorf("TYPE %v, HOST_NAME %q; want %v, %q", typ, host, wantTyp, wantHost)
	}
	if portLike == nil {
		if port != wantPort {
			t.Errorf("PORT %q, want %q", port, wantPort)
		}
	} else if m := portLike.FindStringSubmatch(port); m == nil {
		t.Errorf("PORT %q, want it to match %s", port, portLike)
	} else if n, _ := strconv.Atoi(m[1]); n >= portRandom {
		t.Errorf("PORT %q: random part %d, want below %d", port, n, portRandom)
	}
}

func TestDescribe(t *testing.T) {
	for _, tt := range nodeCases {
		t.Run(tt.name, func(t *testing.T) {
			n, err := testHost(tt.env).describe(nodeNow)
			if err != nil {
				t.Fatal(err)
			}
			checkNode(t, n.typ, n.host, n.port, tt.typ, tt.host, tt.port, tt.portLike)
		})
	}
}
