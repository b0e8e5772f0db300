package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// tokenFile writes a token file of text, mode 0600, and returns its path.
func tokenFile(t *testing.T, text string) string {
	t.Helper()
	return writeKeyFile(t, text, 0o600)
}

// checkUnauthorized fails t unless r is serve's 401: the Bearer challenge
// and a body that says no more than "unauthorized".
func checkUnauthorized(t *testing.T, what string, r reply) {
	t.Helper()
	if r.status != 401 || r.header.Get("WWW-Authenticate") != "Bearer" || r.body != `{"error":"unauthorized"}`+"\n" {
		t.Errorf("%s: %d, WWW-Authenticate %q, %q; want 401, Bearer and only unauthorized", what, r.status, r.header.Get("WWW-Authenticate"), r.body)
	}
}

// TestServeTokens: with -token-file, both tokens of the file are served,
// while a request with a wrong token or none gets 401 on every route:
// the tags', Leaf's, /metrics and the status page. Thousands of refused
// requests spend nothing: the IDs counted stay 0 and a new tag's first
// number is still 1. serve says whom it asks for what.
func TestServeTokens(t *testing.T) {
	oldToken, newToken := newKey(t, 32), newKey(t, 16)
	path := tokenFile(t, "# rotating: clients move to the second\n"+oldToken+"\n\n  "+newToken+"  \n")
	s := startServer(t, "-worker", "7", "-token-file", path, "-create-tags")
	wrong := "Bearer " + newKey(t, 32)
	tag := "t" + newKey(t, 4) // of this run alone: -count=N runs share the SQLite file
	routes := []string{"/id", "/ids?n=10000", "/healthz", "/metrics", "/parse/1", "/segment/" + tag, "/segment/" + tag + "/ids?n=10000",
		"/segments", "/api/segment/get/" + tag, "/api/snowflake/get/" + tag, "/decodeSnowflakeId?snowflakeId=1", "/"}
	for _, path := range routes {
		checkUnauthorized(t, "GET "+path+" without a token", s.do(t, "GET", path))
		checkUnauthorized(t, "GET "+path+" with a wrong token", s.do(t, "GET", path, "Authorization", wrong))
	}
	checkUnauthorized(t, "GET / for a browser", s.do(t, "GET", "/", "Accept", "text/html"))
	refuseMany(t, s, routes, wrong, sizetest.Pick(10_000, 1_000))

	s.token = oldToken
	if n := s.metric(t, "uidgen_ids_total"); n != 0 {
		t.Errorf("uidgen_ids_total %v after refused requests only, want 0", n)
	}
	if r := s.do(t, "GET", "/segment/"+tag); r.status != 200 || r.body != "1\n" {
		t.Errorf("GET /segment/%s after refused requests: %d %q, want 200 and 1, the tag's first number", tag, r.status, r.body)
	}
	for _, token := range []string{oldToken, newToken} {
		s.token = token
		if ids, err := s.do(t, "GET", "/ids?n=3").ids(); err != nil || len(ids) != 3 {
			t.Errorf("GET /ids?n=3 with a token of the file: %v (%v), want 3 IDs", ids, err)
		}
	}
	if r := s.do(t, "GET", "/", "Accept", "text/html"); r.status != 200 || !strings.Contains(r.body, "<html") {
		t.Errorf("GET / for a browser with a token: %d %.100q, want the page", r.status, r.body)
	}
	s.stop(t, syscall.SIGTERM)
	if want := "uidgen serve: callers need a bearer token of " + path + " (2 there)"; !strings.Contains(s.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
	}
	if hexRun.MatchString(s.stderr.String()) {
		t.Errorf("stderr shows a run of hex digits, part of a token?\n%s", s.stderr)
	}
}

// refuseMany sends n requests with the Authorization header auth, over
// routes in turn from 8 clients at once, and fails t unless each is 401.
func refuseMany(t *testing.T, s *server, routes []string, auth string, n int) {
	t.Helper()
	const clients = 8
	errs := make([]error, clients)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := c; i < n; i += clients {
				path := routes[i%len(routes)]
				r, err := s.try("GET", path, "Authorization", auth)
				if err == nil && r.status != 401 {
					err = fmt.Errorf("GET %s with a wrong token: %d %.100q, want 401", path, r.status, r.body)
				}
				if err != nil {
					errs[c] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// TestServeMetricsOpen: -metrics-open serves /metrics without a token,
// and nothing else.
func TestServeMetricsOpen(t *testing.T) {
	s := startServer(t, "-worker", "7", "-token-file", tokenFile(t, newKey(t, 32)+"\n"), "-metrics-open")
	if r := s.do(t, "GET", "/metrics"); r.status != 200 || !strings.Contains(r.body, "uidgen_worker_id 7") {
		t.Errorf("GET /metrics without a token, -metrics-open: %d %.100q, want 200 and the metrics", r.status, r.body)
	}
	checkUnauthorized(t, "GET /id without a token, -metrics-open", s.do(t, "GET", "/id"))
	checkUnauthorized(t, "GET / without a token, -metrics-open", s.do(t, "GET", "/"))
	s.stop(t, syscall.SIGTERM)
}

// testCA is a certificate authority of a test's own.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	file string // its certificate, in PEM
}

// newCA makes a CA named name and writes its certificate in dir.
func newCA(t *testing.T, dir, name string) testCA {
	t.Helper()
	tmpl := certTemplate(name)
	tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign
	key := newECKey(t)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name+".pem")
	writePEM(t, file, "CERTIFICATE", der)
	return testCA{cert: cert, key: key, file: file}
}

// issue makes a certificate of ca's for name, a server's for 127.0.0.1
// and localhost where server, else a client's, and writes it and its key
// in dir: name.pem and name-key.pem.
func (ca testCA) issue(t *testing.T, dir, name string, server bool) (certFile, keyFile string) {
	t.Helper()
	tmpl := certTemplate(name)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses, tmpl.DNSNames = []net.IP{net.IPv4(127, 0, 0, 1)}, []string{"localhost"}
	}
	key := newECKey(t)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "PRIVATE KEY", keyDER)
	return certFile, keyFile
}

func certTemplate(name string) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
}

func newECKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// writePEM writes der as a PEM block of typ to path, mode 0600.
func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// overTLS points s's requests at https, trusting ca's certificates and
// presenting the client certificate of certFile and keyFile where given.
func (s *server) overTLS(t *testing.T, ca testCA, certFile, keyFile string) {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	cfg := &tls.Config{RootCAs: roots}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	tr := &http.Transport{TLSClientConfig: cfg}
	t.Cleanup(tr.CloseIdleConnections)
	s.client = &http.Client{Transport: tr}
	_, addr, _ := strings.Cut(s.url, "://")
	s.url = "https://" + addr
}

// pki is a test's certificates: a CA, serve's certificate of it, and a
// client CA with a client's certificate of it.
type pki struct {
	dir                   string
	ca, clientCA          testCA
	serverCert, serverKey string
	clientCert, clientKey string
}

func newPKI(t *testing.T) pki {
	t.Helper()
	p := pki{dir: t.TempDir()}
	p.ca = newCA(t, p.dir, "ca")
	p.serverCert, p.serverKey = p.ca.issue(t, p.dir, "server", true)
	p.clientCA = newCA(t, p.dir, "client-ca")
	p.clientCert, p.clientKey = p.clientCA.issue(t, p.dir, "client", false)
	return p
}

// TestServeTLS: with -tls-cert and -tls-key serve answers HTTPS, to a
// client that trusts its CA, with a token; a client that does not trust
// it fails the handshake, and plain HTTP gets no ID.
func TestServeTLS(t *testing.T) {
	p := newPKI(t)
	token := newKey(t, 32)
	s := startServer(t, "-worker", "7", "-token-file", tokenFile(t, token+"\n"), "-tls-cert", p.serverCert, "-tls-key", p.serverKey)
	plain := s.url
	s.overTLS(t, p.ca, "", "")
	checkUnauthorized(t, "GET /id over TLS without a token", s.do(t, "GET", "/id"))
	s.token = token
	if ids, err := s.do(t, "GET", "/ids?n=3").ids(); err != nil || len(ids) != 3 {
		t.Errorf("GET /ids?n=3 over TLS: %v (%v), want 3 IDs", ids, err)
	}
	s.overTLS(t, p.clientCA, "", "") // trusts another CA
	if _, err := s.try("GET", "/id"); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Errorf("GET /id trusting another CA: %v, want the handshake to fail on the unknown authority", err)
	}
	if r, err := http.Get(plain + "/id"); err != nil || r.StatusCode != 400 {
		t.Errorf("GET /id over plain HTTP: %v %v, want net/http's 400 to HTTP on a TLS port", r, err)
	} else {
		r.Body.Close()
	}
	s.stop(t, syscall.SIGTERM)
	if want := "uidgen serve: HTTPS with the certificate of " + p.serverCert; !strings.Contains(s.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, s.stderr)
	}
}

// TestServeClientCert: with -client-ca a client with a certificate of
// that CA is served on every route, the status page and Leaf's among
// them, without a token; one whose certificate another CA signed, or that
// has none, fails the handshake. With -token-file too, it needs both.
func TestServeClientCert(t *testing.T) {
	p := newPKI(t)
	stranger := newCA(t, p.dir, "stranger")
	strangerCert, strangerKey := stranger.issue(t, p.dir, "intruder", false)
	args := []string{"-worker", "7", "-tls-cert", p.serverCert, "-tls-key", p.serverKey, "-client-ca", p.clientCA.file}

	s := startServer(t, args...)
	s.overTLS(t, p.ca, p.clientCert, p.clientKey)
	for _, path := range []string{"/id", "/api/snowflake/get/order", "/metrics", "/"} {
		if r := s.do(t, "GET", path, "Accept", "text/html"); r.status != 200 {
			t.Errorf("GET %s with a client certificate: %d %.100q, want 200", path, r.status, r.body)
		}
	}
	for name, files := range map[string][2]string{"another CA's certificate": {strangerCert, strangerKey}, "no certificate": {}} {
		s.overTLS(t, p.ca, files[0], files[1])
		if r, err := s.try("GET", "/id"); err == nil {
			t.Errorf("GET /id with %s: %d %q, want the handshake to fail", name, r.status, r.body)
		}
	}
	s.stop(t, syscall.SIGTERM)

	token := newKey(t, 32)
	both := startServer(t, append(args, "-token-file", tokenFile(t, token+"\n"))...)
	both.overTLS(t, p.ca, p.clientCert, p.clientKey)
	checkUnauthorized(t, "GET /id with a client certificate, no token", both.do(t, "GET", "/id"))
	both.token = token
	if r := both.do(t, "GET", "/id"); r.status != 200 {
		t.Errorf("GET /id with a client certificate and a token: %d %q, want 200", r.status, r.body)
	}
	both.stop(t, syscall.SIGTERM)
}

// curl runs curl with args, as a client in another language would call
// serve, and returns what it printed. It skips t where curl is missing,
// but fails it in CI, which must run it.
func curl(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no curl in CI (%v): install curl", err)
		}
		t.Skipf("needs curl (%v)", err)
	}
	out, err := exec.Command(bin, append([]string{"-sS", "--max-time", "30"}, args...)...).CombinedOutput()
	return string(out), err
}

// TestServeCurl: curl, with the CA's certificate, a token and a client
// certificate, gets IDs from serve over TLS; without the client
// certificate, or with a wrong token, it gets none.
func TestServeCurl(t *testing.T) {
	p := newPKI(t)
	token := newKey(t, 32)
	s := startServer(t, "-worker", "7", "-token-file", tokenFile(t, token+"\n"),
		"-tls-cert", p.serverCert, "-tls-key", p.serverKey, "-client-ca", p.clientCA.file)
	_, addr, _ := strings.Cut(s.url, "://")
	url := "https://" + addr + "/ids?n=3"
	tlsArgs := []string{"--cacert", p.ca.file, "--cert", p.clientCert, "--key", p.clientKey}

	out, err := curl(t, append(tlsArgs, "-H", "Authorization: Bearer "+token, "-H", "Accept: text/plain", url)...)
	if lines := strings.Fields(out); err != nil || len(lines) != 3 {
		t.Errorf("curl with a token and a client certificate: %v, %q; want 3 IDs", err, out)
	}
	out, err = curl(t, append(tlsArgs, "-H", "Authorization: Bearer "+newKey(t, 32), "-w", "%{http_code}", "-o", os.DevNull, url)...)
	if err != nil || out != "401" {
		t.Errorf("curl with a wrong token: %v, %q; want 401", err, out)
	}
	out, err = curl(t, "--cacert", p.ca.file, "-H", "Authorization: Bearer "+token, url)
	if err == nil {
		t.Errorf("curl without a client certificate: %q, want the handshake to fail", out)
	}
	s.stop(t, syscall.SIGTERM)
}

// TestServeOpenNetworkWarning: serve on every address, 0.0.0.0, warns on
// stderr that anyone may spend its IDs unless a token or a client
// certificate is asked for, and warns of tokens in the clear without TLS;
// on loopback, or with tokens over TLS, it warns of nothing.
func TestServeOpenNetworkWarning(t *testing.T) {
	p := newPKI(t)
	tokens := tokenFile(t, newKey(t, 32)+"\n")
	// The warning without either names the risk and the flags that fix it.
	open := []string{"anyone who reaches the port can spend IDs, segment numbers and worker-ID time", "-token-file FILE", "-tls-cert", "-client-ca FILE"}
	for _, tt := range []struct {
		name string
		args []string
		want []string // nil: no warning
	}{
		{"0.0.0.0, nothing asked", []string{"-addr", "0.0.0.0:0"}, open},
		{"0.0.0.0, tokens without TLS", []string{"-addr", "0.0.0.0:0", "-token-file", tokens}, []string{"the tokens cross it in the clear"}},
		{"0.0.0.0, tokens over TLS", []string{"-addr", "0.0.0.0:0", "-token-file", tokens, "-tls-cert", p.serverCert, "-tls-key", p.serverKey}, nil},
		{"0.0.0.0, client certificates", []string{"-addr", "0.0.0.0:0", "-tls-cert", p.serverCert, "-tls-key", p.serverKey, "-client-ca", p.clientCA.file}, nil},
		{"loopback, nothing asked", []string{"-addr", "127.0.0.1:0"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, append([]string{"-worker", "7"}, tt.args...)...)
			s.stop(t, syscall.SIGTERM)
			stderr := s.stderr.String()
			if tt.want == nil && strings.Contains(stderr, "warning") {
				t.Errorf("stderr:\n%s\nwant no warning", stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, "uidgen serve: warning: ") || !strings.Contains(stderr, w) {
					t.Errorf("stderr:\n%s\nwant a warning that says %q", stderr, w)
				}
			}
		})
	}
}

// TestServeAuthBadCalls: flags of TLS and tokens that do not go together
// are usage errors.
func TestServeAuthBadCalls(t *testing.T) {
	testBadCalls(t, []badCall{
		{[]string{"serve", "-tls-cert", "c.pem"}, "-tls-cert and -tls-key go together"},
		{[]string{"serve", "-tls-key", "k.pem"}, "-tls-cert and -tls-key go together"},
		{[]string{"serve", "-client-ca", "ca.pem"}, "-client-ca needs -tls-cert and -tls-key"},
		{[]string{"serve", "-metrics-open"}, "-metrics-open needs -token-file"},
		{[]string{"serve", "-metrics-open", "-token-file", "t", "-tls-cert", "c", "-tls-key", "k", "-client-ca", "ca"}, "-metrics-open and -client-ca"},
		{[]string{"serve", "-token-file", ""}, `-token-file "": want the token file`},
	})
}

// TestServeAuthFilesRefused: a token file serve cannot use is refused as
// a key file is, exit 1 before it listens, naming the file and the line
// but never a token; and so are a certificate and a CA file it cannot
// read.
func TestServeAuthFilesRefused(t *testing.T) {
	token := newKey(t, 32)
	p := newPKI(t)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{"-token-file", token}, "-token-file: no such file (its name is not repeated here, in case it is a token)"},
		{"mode 0644", []string{"-token-file", writeKeyFile(t, token+"\n", 0o644)}, ": mode 0644 lets group or others read the tokens, which let anyone spend IDs: chmod 600"},
		{"comments only", []string{"-token-file", tokenFile(t, "# none yet\n\n")}, "holds no token: add one with (umask 077; openssl rand -hex 32 >> "},
		{"short", []string{"-token-file", tokenFile(t, token+"\n"+token[:15]+"\n")}, ": line 2: a token of 15 bytes: want 16 or more"},
		{"not a b64token", []string{"-token-file", tokenFile(t, token[:20]+" "+token[20:]+"\n")}, ": line 1: character 21 is not one a bearer token holds"},
		{"= inside", []string{"-token-file", tokenFile(t, token[:20]+"="+token[20:]+"\n")}, ": line 1: character 21 is not one"},
		{"a key for the certificate", []string{"-tls-cert", p.serverCert, "-tls-key", p.clientKey}, "-tls-cert " + p.serverCert + ", -tls-key " + p.clientKey + ": tls: private key does not match public key"},
		{"no PEM in the CA file", []string{"-tls-cert", p.serverCert, "-tls-key", p.serverKey, "-client-ca", tokenFile(t, token+"\n")}, "holds no PEM certificate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append([]string{"serve", "-worker", "3", "-addr", "127.0.0.1:0"}, tt.args...)...)
			if code != 1 || out != "" || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, stderr, tt.want)
			}
			if strings.Contains(stderr, token[:16]) {
				t.Errorf("stderr %q shows part of a token", stderr)
			}
		})
	}
}
