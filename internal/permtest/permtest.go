// Package permtest takes permissions away from files for a test, as a user
// meets them: a file or a directory this process may not write, or read.
//
// Root ignores file modes, so as root a file is made unwritable with
// chattr +i, which binds root too; a test that cannot take the permission
// away is skipped, never passed by a permission it still has.
package permtest

import (
	"os"
	"os/exec"
	"testing"
)

// ReadOnly makes path, a file or a directory, unwritable to this process
// until the test ends: no write to the file, no new file in the directory.
func ReadOnly(t testing.TB, path string) {
	t.Helper()
	if os.Geteuid() == 0 {
		if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
			t.Skipf("root writes whatever the mode, and chattr +i %s failed: %v: %s", path, err, out)
		}
		t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
		return
	}
	chmod(t, path, 0o222)
}

// Unreadable makes the file at path unreadable to this process until the
// test ends, and skips the test as root, which reads any file.
func Unreadable(t testing.TB, path string) {
	t.Helper()
	if os.Geteuid() == 0 {
		t.Skip("root reads whatever the mode")
	}
	chmod(t, path, 0o666)
}

// chmod clears the bits of off in path's mode until the test ends.
func chmod(t testing.TB, path string, off os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, info.Mode()&^off); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, info.Mode()) })
}
