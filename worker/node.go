package worker

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seed4d941b13/uidgen/internal/dialect"
)

// NodeType says where a worker runs; it is the TYPE column of WORKER_NODE.
// The values are those of Baidu's WorkerNodeType, so rows written by the Go
// and the Java assigner read alike.
type NodeType int

const (
	// Container is a process whose host and port the environment gives:
	// JPAAS variables, or a Kubernetes pod.
	Container NodeType = 1

	// Actual is a process on a machine of its own: HOST_NAME is its network
	// address and PORT a token unique to this start.
	Actual NodeType = 2
)

// String returns Baidu's name of the type: "CONTAINER" or "ACTUAL".
func (t NodeType) String() string {
	switch t {
	case Container:
		return "CONTAINER"
	case Actual:
		return "ACTUAL"
	}
	return "NodeType(" + strconv.Itoa(int(t)) + ")"
}

// The environment variables read to describe the node. The JPAAS names are
// Baidu's (DockerUtils); KUBERNETES_SERVICE_HOST is set in every Kubernetes
// pod, HOSTNAME is the pod's name there, and POD_IP is the name the
// Kubernetes documentation gives status.podIP in the downward API.
const (
	envJPAASHost      = "JPAAS_HOST"
	envJPAASHTTPPort  = "JPAAS_HTTP_PORT"
	envJPAASPort8080  = "JPAAS_HOST_PORT_8080"
	envK8sServiceHost = "KUBERNETES_SERVICE_HOST"
	envHostname       = "HOSTNAME"
	envPodIP          = "POD_IP"
)

// columnChars is the width of HOST_NAME and PORT: VARCHAR(64).
const columnChars = 64

// portRandom bounds the random half of an actual host's PORT, as Baidu's
// RandomUtils.nextInt(100000).
const portRandom = 100000

// node is one WORKER_NODE row's description of this process.
type node struct {
	typ  NodeType
	host string // HOST_NAME
	port string // PORT
}

// host is where node descriptions come from: the environment and the
// machine's network. Tests replace each part.
type host struct {
	lookupEnv func(string) (string, bool)
	addrs     func() ([]net.Addr, error)
	hostname  func() (string, error)
	// local says the table is in a file on this machine (SQLite): its
	// rows name the process, so that a holder that is gone can be seen.
	local bool
}

// systemHost returns the host of this process, for a table in d.
func systemHost(d *dialect.Dialect) host {
	return host{lookupEnv: os.LookupEnv, addrs: net.InterfaceAddrs, hostname: os.Hostname, local: d == dialect.SQLite}
}

// pidPrefix starts the PORT of a process that keeps its worker ID in a
// file on its own machine; its process ID follows.
const pidPrefix = "pid-"

// processPort returns the PORT of the process pid: "pid-4242".
func processPort(pid int) string { return pidPrefix + strconv.Itoa(pid) }

// portProcess returns the process ID that a PORT written by processPort
// names, or false.
func portProcess(port string) (int, bool) {
	s, ok := strings.CutPrefix(port, pidPrefix)
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(s)
	return pid, err == nil && pid > 0
}

// env returns the variable's value, with a blank one read as unset, as
// Baidu's StringUtils.isBlank does.
func (h host) env(name string) string {
	v, _ := h.lookupEnv(name)
	return strings.TrimSpace(v)
}

// describe describes this process at now, in Baidu's order: JPAAS container,
// then (ours) Kubernetes pod, then actual host. For a table in a local file
// it is an actual host, named by its host name, and PORT names the process,
// whose holders all run on the file's machine.
func (h host) describe(now time.Time) (node, error) {
	if h.local {
		name, err := h.hostname()
		if err != nil || name == "" {
			return node{}, fmt.Errorf("%w: no host name: %w", ErrNoHost, cmp.Or(err, errors.New("host name is empty")))
		}
		return node{typ: Actual, host: name, port: processPort(os.Getpid())}, nil
	}
	host := h.env(envJPAASHost)
	portVar := envJPAASHTTPPort
	port := h.env(portVar)
	if port == "" {
		portVar = envJPAASPort8080
		port = h.env(portVar)
	}
	switch {
	case host != "" && port != "":
		return container(host, port)
	case host != "":
		return node{}, fmt.Errorf("%w: %s=%q is set but neither %s nor %s is",
			ErrContainerEnv, envJPAASHost, host, envJPAASHTTPPort, envJPAASPort8080)
	case port != "":
		return node{}, fmt.Errorf("%w: %s=%q is set but %s is not",
			ErrContainerEnv, portVar, port, envJPAASHost)
	}

	if h.env(envK8sServiceHost) != "" {
		return h.pod()
	}

	addr, err := h.address()
	if err != nil {
		return node{}, err
	}
	millis := strconv.FormatInt(now.UnixMilli(), 10)
	return node{typ: Actual, host: addr, port: millis + "-" + strconv.Itoa(rand.IntN(portRandom))}, nil
}

// pod describes a Kubernetes pod: its name, and its IP where the pod's
// spec passes it (POD_IP), else the host's address.
func (h host) pod() (node, error) {
	name := h.env(envHostname)
	if name == "" {
		return node{}, fmt.Errorf("%w: %s is set (a Kubernetes pod) but %s, the pod's name, is not",
			ErrContainerEnv, envK8sServiceHost, envHostname)
	}
	addr := h.env(envPodIP)
	if addr == "" {
		var err error
		if addr, err = h.address(); err != nil {
			return node{}, err
		}
	}
	return container(addr, name)
}

// container returns a CONTAINER node, refusing values that the VARCHAR(64)
// columns would truncate or reject.
func container(host, port string) (node, error) {
	for _, c := range [...]struct{ column, value string }{{"HOST_NAME", host}, {"PORT", port}} {
		if n := utf8.RuneCountInString(c.value); n > columnChars {
			return node{}, fmt.Errorf("%w: %s value %q is %d characters, the column holds %d",
				ErrContainerEnv, c.column, c.value, n, columnChars)
		}
	}
	return node{typ: Container, host: host, port: port}, nil
}

// address returns the first address of this machine that is neither
// loopback nor link-local, as Baidu's NetUtils does. Where there is none
// (a machine that reaches its database only through 127.0.0.1) it falls back to
// the host name, since the row is a record for people and never decides
// the ID.
func (h host) address() (string, error) {
	addrs, err := h.addrs()
	if err == nil {
		if a, ok := firstAddress(addrs); ok {
			return a, nil
		}
	}
	name, herr := h.hostname()
	if herr == nil && name != "" {
		return name, nil
	}
	if herr == nil {
		herr = errors.New("host name is empty")
	}
	return "", fmt.Errorf("%w: no address outside loopback and link-local, and no host name: %w",
		ErrNoHost, errors.Join(err, herr))
}

// firstAddress returns the first of addrs that is an IP address and neither
// loopback, link-local nor unspecified.
func firstAddress(addrs []net.Addr) (string, bool) {
	for _, a := range addrs {
		ipnet, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip := ipnet.IP
		if ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() {
			continue
		}
		return ip.String(), true
	}
	return "", false
}
