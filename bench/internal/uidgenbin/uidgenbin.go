// Package uidgenbin builds the uidgen command for the benchmark commands
// that run it as a process of its own, as a user would.
package uidgenbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build builds cmd/uidgen into a new temporary directory and returns the
// binary's path, and a func that removes the directory. The go command's
// output goes to stderr.
//
// It builds in the uidgen module, with its go.sum, as `go install` does:
// the command's own requirements (golang.org/x/term) are no package of
// bench's, so bench's go.sum does not list them.
func Build() (bin string, remove func(), err error) {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/seed4d941b13/uidgen").Output()
	if err != nil {
		return "", nil, fmt.Errorf("finding the uidgen module: %w", err)
	}
	dir, err := os.MkdirTemp("", "uidgen-bench")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	bin = filepath.Join(dir, "uidgen")
	build := exec.Command("go", "build", "-o", bin, "./cmd/uidgen")
	build.Dir = strings.TrimSpace(string(root))
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		remove()
		return "", nil, fmt.Errorf("building uidgen: %w", err)
	}
	return bin, remove, nil
}
