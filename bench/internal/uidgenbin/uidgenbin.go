// Package uidgenbin builds the uidgen command for the benchmark commands
// that run it as a process of its own, as a user would.
package uidgenbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Build builds cmd/uidgen into a new temporary directory and returns the
// binary's path, and a func that removes the directory. The go command's
// output goes to stderr.
func Build() (bin string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "uidgen-bench")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	bin = filepath.Join(dir, "uidgen")
	build := exec.Command("go", "build", "-o", bin, "github.com/seed4d941b13/uidgen/cmd/uidgen")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		remove()
		return "", nil, fmt.Errorf("building uidgen: %w", err)
	}
	return bin, remove, nil
}
