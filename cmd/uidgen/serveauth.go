package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
)

// minToken is the fewest bytes a bearer token of -token-file may have:
// 16, as openssl rand -hex 8 writes, 64 bits to guess.
const minToken = 16

// authFlags are serve's flags of who may call it: bearer tokens, TLS and
// client certificates. With -client-ca the TLS handshake refuses a client
// without a certificate its CAs signed; with -token-file every request
// needs a token too; with both, both.
type authFlags struct {
	fs          *flag.FlagSet
	tokenFile   string
	cert, key   string
	clientCA    string
	metricsOpen bool
}

func (a *authFlags) register(fs *flag.FlagSet) {
	a.fs = fs
	fs.StringVar(&a.tokenFile, "token-file", "", "answer only requests with a bearer token of `FILE` (Authorization: Bearer TOKEN), others 401;\n"+
		"a token a line, 16 bytes or more, as openssl rand -hex 32 writes one, # comments and blank lines aside; mode 600")
	fs.StringVar(&a.cert, "tls-cert", "", "serve HTTPS with the certificate chain of PEM `FILE`; needs -tls-key")
	fs.StringVar(&a.key, "tls-key", "", "the private key of -tls-cert, in PEM `FILE`")
	fs.StringVar(&a.clientCA, "client-ca", "", "refuse, in the TLS handshake, a client without a certificate signed by a CA of PEM `FILE`; needs -tls-cert")
	fs.BoolVar(&a.metricsOpen, "metrics-open", false, "leave /metrics, alone, open to a scraper without a token; needs -token-file")
}

// check refuses flags that do not go together.
func (a *authFlags) check() error {
	switch {
	case (a.cert == "") != (a.key == ""):
		return fmt.Errorf("%w: -tls-cert and -tls-key go together: give the certificate and its private key, or neither", ErrUsage)
	case a.clientCA != "" && a.cert == "":
		return fmt.Errorf("%w: -client-ca needs -tls-cert and -tls-key: client certificates are asked for in the TLS handshake", ErrUsage)
	case a.metricsOpen && a.clientCA != "":
		return fmt.Errorf("%w: -metrics-open and -client-ca: the TLS handshake refuses a client without a certificate, on every route; give the scraper a client certificate", ErrUsage)
	case a.metricsOpen && a.tokenFile == "":
		return fmt.Errorf("%w: -metrics-open needs -token-file: without one every route is open", ErrUsage)
	}
	_, err := tokenSecrets.given(a.fs, a.tokenFile)
	return err
}

// load returns the tokens of -token-file and the TLS configuration of
// -tls-cert, nil for those not given.
func (a *authFlags) load() ([]string, *tls.Config, error) {
	tokens, err := a.tokens()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := a.tlsConfig()
	return tokens, cfg, err
}

// tokens returns the tokens of -token-file, nil where it is not given.
func (a *authFlags) tokens() ([]string, error) {
	if a.tokenFile == "" {
		return nil, nil
	}
	text, err := tokenSecrets.read(a.tokenFile)
	if err != nil {
		return nil, err
	}
	return parseTokens(a.tokenFile, text)
}

// parseTokens returns the tokens of text, the token file at path: a token
// a line, blank lines and lines that start with # left out.
func parseTokens(path, text string) ([]string, error) {
	var tokens []string
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := checkToken(line); err != nil {
			return nil, fmt.Errorf("-token-file %s: line %d: %w", path, i+1, err)
		}
		tokens = append(tokens, line)
	}
	if len(tokens) == 0 {
		return nil, tokenSecrets.empty(path)
	}
	return tokens, nil
}

// checkToken refuses a token too short to be hard to guess, or with a
// character that RFC 6750's b64token, which a header carries, cannot
// hold. It never shows the token.
func checkToken(token string) error {
	body := strings.TrimRight(token, "=")
	if i := strings.IndexFunc(body, notB64Token); i >= 0 {
		return fmt.Errorf("character %d is not one a bearer token holds: want letters, digits and -._~+/, and = at the end only", i+1)
	}
	if len(token) < minToken {
		return fmt.Errorf("a token of %d bytes: want %d or more, as openssl rand -hex 32 writes", len(token), minToken)
	}
	return nil
}

func notB64Token(r rune) bool {
	return !('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || strings.ContainsRune("-._~+/", r))
}

// tlsConfig returns the TLS configuration of -tls-cert, which asks for
// client certificates where -client-ca is given; nil without -tls-cert.
func (a *authFlags) tlsConfig() (*tls.Config, error) {
	if a.cert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(a.cert, a.key)
	if err != nil {
		return nil, fmt.Errorf("-tls-cert %s, -tls-key %s: %w", a.cert, a.key, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if a.clientCA != "" {
		pem, err := os.ReadFile(a.clientCA)
		if err != nil {
			return nil, fmt.Errorf("-client-ca: %w", err)
		}
		cfg.ClientCAs = x509.NewCertPool()
		if !cfg.ClientCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("-client-ca %s holds no PEM certificate: want the CAs that sign the clients' certificates", a.clientCA)
		}
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// announce says on stderr who may call serve at addr, and warns where
// anyone beyond this machine may, or where tokens cross the network in
// the clear.
func (a *authFlags) announce(stderr io.Writer, addr net.Addr, tokens int) {
	if a.cert != "" {
		fmt.Fprintf(stderr, "uidgen serve: HTTPS with the certificate of %s\n", a.cert)
	}
	if a.clientCA != "" {
		fmt.Fprintf(stderr, "uidgen serve: callers need a client certificate signed by a CA of %s\n", a.clientCA)
	}
	if tokens > 0 {
		fmt.Fprintf(stderr, "uidgen serve: callers need a bearer token of %s (%d there)\n", a.tokenFile, tokens)
	}
	if a.metricsOpen {
		fmt.Fprintln(stderr, "uidgen serve: /metrics needs no token (-metrics-open)")
	}
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		return
	}
	switch {
	case tokens == 0 && a.clientCA == "":
		fmt.Fprintf(stderr, "uidgen serve: warning: %s is open to the network, and no -token-file or -client-ca asks who calls: "+
			"anyone who reaches the port can spend IDs, segment numbers and worker-ID time; give -token-file FILE, "+
			"with -tls-cert and -tls-key, or -client-ca FILE, or listen on 127.0.0.1\n", addr)
	case a.cert == "":
		fmt.Fprintf(stderr, "uidgen serve: warning: %s is open to the network without TLS: the tokens cross it in the clear; give -tls-cert and -tls-key\n", addr)
	}
}
