package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// secretFile is a flag that names a file of secrets, one a line: the keys
// of -opaque-key, the bearer tokens of -token-file. Each is read, and
// refused, by the same rules, in the same words.
type secretFile struct {
	flag   string // as given: "-opaque-key"
	one    string // a secret, as "in case it is a key"
	many   string // the secrets, as "the file of the keys"
	reveal string // what the secrets give whoever reads them, after "which"
}

var (
	keySecrets   = secretFile{flag: "-opaque-key", one: "key", many: "keys", reveal: "reveal every opaque ID"}
	tokenSecrets = secretFile{flag: "-token-file", one: "token", many: "tokens", reveal: "let anyone spend IDs"}
)

// given reports whether the flag names a file. An empty name is a usage
// error where the flag was set, rather than read as no flag, which would
// drop what the file was given for.
func (s secretFile) given(fset *flag.FlagSet, path string) (bool, error) {
	if path == "" && setFlag(fset, s.flag[1:]) != "" {
		return false, fmt.Errorf("%w: %s \"\": want the %s file", ErrUsage, s.flag, s.one)
	}
	return path != "", nil
}

// read returns the text of the file at path. It refuses a file that group
// or others may read, as ssh refuses such a private key. No message shows
// a secret, or any part of one.
func (s secretFile) read(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", s.openError(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.flag, err)
	}
	if info.IsDir() {
		return "", fmt.Errorf("%s %s is a directory: want the file of the %s", s.flag, path, s.many)
	}
	// Any file but a directory: a secret from a pipe, as <(vault read ...)
	// hands one over, passes with the pipe's mode, 0600.
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("%s %s: mode %04o lets group or others read the %s, which %s: chmod 600 %[2]s", s.flag, path, perm, s.many, s.reveal)
	}
	text, err := io.ReadAll(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.flag, err)
	}
	return string(text), nil
}

// openError is the error of opening the file. Where no such file exists
// its name is left out: it may be a secret given in its place, in hex,
// base64 or any other form, which os.Open's error would print into a log.
func (s secretFile) openError(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: no such file (its name is not repeated here, in case it is a %s): %[1]s takes the file of the %[3]s", s.flag, s.one, s.many)
	}
	return fmt.Errorf("%s: %w", s.flag, err)
}

// empty is the error of a file at path that holds no secret.
func (s secretFile) empty(path string) error {
	return fmt.Errorf("%s %s holds no %s: add one with (umask 077; openssl rand -hex 32 >> %[2]s)", s.flag, path, s.one)
}
