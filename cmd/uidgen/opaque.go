package main

import (
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/seed4d941b13/uidgen"
)

// opaqueFlag is -opaque-key FILE: the key file of the opaque IDs that gen
// prints, parse reads back and serve hands out (uidgen.Opaque).
//
// The file holds one key a line, in hex, as `openssl rand -hex 32` writes
// one; line N is key number N, the number an opaque ID's text starts with,
// and the last line's key hides. Rotating the key is appending a line:
// texts made under the older keys still read back. Blank lines may end
// the file; anywhere else they would renumber the keys after them.
type opaqueFlag struct {
	fs   *flag.FlagSet
	file string
}

// register adds -opaque-key to fs; usage says what the command does with
// the opaque IDs and the keys of `FILE`.
func (o *opaqueFlag) register(fs *flag.FlagSet, usage string) {
	o.fs = fs
	fs.StringVar(&o.file, "opaque-key", "", usage+"\na key a line in hex, as (umask 077; openssl rand -hex 32 >> FILE) adds one; the last line's hides")
}

// opaque returns the Opaque of l's layout under the file's keys, or nil
// where the flag is not given. An empty name is a usage error, where it
// would otherwise read as no flag and show the plain IDs, and so is a
// layout too narrow to hide; a file it cannot use is an error naming it.
func (o *opaqueFlag) opaque(l *layoutFlags) (*uidgen.Opaque, error) {
	if given, err := keySecrets.given(o.fs, o.file); !given {
		return nil, err
	}
	layout, err := l.layout()
	if err != nil {
		return nil, err
	}
	keys, err := readKeyFile(o.file)
	if err != nil {
		return nil, err
	}
	op, err := uidgen.NewOpaque(layout, keys...)
	if err != nil {
		return nil, callerError{fmt.Errorf("-opaque-key %s: %w", o.file, err)}
	}
	return op, nil
}

// readKeyFile returns the keys of the key file at path, in its lines'
// order, read by keySecrets' rules: its keys reveal every opaque ID.
func readKeyFile(path string) ([][]byte, error) {
	text, err := keySecrets.read(path)
	if err != nil {
		return nil, err
	}
	return parseKeys(path, text)
}

// parseKeys returns the keys of text, the key file at path.
func parseKeys(path, text string) ([][]byte, error) {
	text = strings.TrimRight(text, " \t\r\n")
	if text == "" {
		return nil, keySecrets.empty(path)
	}
	lines := strings.Split(text, "\n")
	keys := make([][]byte, len(lines))
	for i, line := range lines {
		key, err := parseKey(strings.TrimSpace(line))
		if err != nil {
			return nil, fmt.Errorf("-opaque-key %s: line %d: %w", path, i+1, err)
		}
		keys[i] = key
	}
	return keys, nil
}

// parseKey returns the key a line of the key file holds in hex.
func parseKey(line string) ([]byte, error) {
	if line == "" {
		return nil, errors.New("blank: a key's number is its line's, so blank lines may only end the file")
	}
	if i := strings.IndexFunc(line, notHex); i >= 0 {
		return nil, fmt.Errorf("character %d is not a hex digit: want a key in hex, as openssl rand -hex 32 writes one", utf8.RuneCountInString(line[:i])+1)
	}
	key, err := hex.DecodeString(line)
	if err != nil { // every character is a hex digit: hex.ErrLength
		return nil, fmt.Errorf("%d hex digits, an odd number: want two a byte", len(line))
	}
	switch len(key) {
	case 16, 24, 32:
		return key, nil
	}
	return nil, fmt.Errorf("a key of %d bytes: want 16, 24 or 32 bytes (32, 48 or 64 hex digits), as openssl rand -hex 16, 24 or 32 writes", len(key))
}

func notHex(r rune) bool {
	return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F')
}
