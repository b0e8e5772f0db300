package api

import (
	"bufio"
	"bytes"
	"flag"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite api/v1.txt from the code: after a change of API that is meant")

// golden is the promise, beside this file.
const golden = "v1.txt"

// TestAPI holds the module's exported API to api/v1.txt.
func TestAPI(t *testing.T) {
	var have []string
	for _, pkg := range modulePackages(t) {
		have = append(have, Lines(pkg)...)
	}
	if *update {
		if err := os.WriteFile(golden, []byte(strings.Join(have, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	broken, added := Diff(strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"), have)
	if len(broken) > 0 {
		t.Errorf("the exported API breaks v1's promise (api/v1.txt): an incompatible change needs a new major version, not this:\n\t%s",
			strings.Join(broken, "\n\t"))
	}
	if len(added) > 0 {
		t.Errorf("new API, not yet in api/v1.txt: if it is meant, run go test ./api -update and commit the file:\n\t%s",
			strings.Join(added, "\n\t"))
	}
}

// modulePackages type-checks the module's importable packages (not
// internal/, not commands) from the export data the go command builds.
func modulePackages(t *testing.T) []*types.Package {
	t.Helper()
	root := ".."
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("needs the go command: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-e", "-export", "-deps",
		"-f", "{{.ImportPath}}\t{{.Name}}\t{{.Export}}\t{{.Module}}\t{{if .Error}}{{.Error}}{{end}}", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off") // this module alone, not bench
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	modCmd := exec.Command(goTool, "list", "-m")
	modCmd.Dir, modCmd.Env = cmd.Dir, cmd.Env
	mod, err := modCmd.Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	module := strings.TrimSpace(string(mod))
	exports := map[string]string{}
	var ours []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 5 {
			t.Fatalf("go list printed %q", sc.Text())
		}
		path, name, export, pkgErr := f[0], f[1], f[2], f[4]
		if pkgErr != "" {
			t.Fatalf("%s: %s", path, pkgErr)
		}
		exports[path] = export
		inModule := path == module || strings.HasPrefix(path, module+"/")
		// export is empty for a directory of tests alone, such as this one.
		if inModule && export != "" && name != "main" && !slices.Contains(strings.Split(path, "/"), "internal") {
			ours = append(ours, path)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	var pkgs []*types.Package
	for _, path := range ours {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
		pkgs = append(pkgs, pkg)
	}
	if len(pkgs) < 5 {
		t.Fatalf("found only %v; want every package of %s", ours, module)
	}
	return pkgs
}

// TestDiff: the checker itself, on two versions of a small package.
func TestDiff(t *testing.T) {
	v1 := `package p
type Leaser interface { Lease() int }
type Config struct { Size int }
func New(Config) (*Gen, error) { return nil, nil }
func Gone() {}
type Gen struct{}
func (*Gen) Next() int64 { return 0 }
const Max = 8
`
	v2 := `package p
type Leaser interface { Lease() int; Renew() }
type Config struct { Size int; Name string }
func New(Config, int) (*Gen, error) { return nil, nil }
type Gen struct{}
func (*Gen) Next() int64 { return 0 }
func (*Gen) Close() error { return nil }
const Max = 16
`
	broken, added := Diff(Lines(check(t, v1)), Lines(check(t, v2)))
	wantBroken := []string{
		"removed or changed: pkg p, const Max untyped int = 8",
		"removed or changed: pkg p, func Gone()",
		"removed or changed: pkg p, func New(Config) (*Gen, error)",
		"method added to an interface: pkg p, type Leaser interface, Renew()",
	}
	wantAdded := []string{
		"pkg p, const Max untyped int = 16",
		"pkg p, func New(Config, int) (*Gen, error)",
		"pkg p, method (*Gen) Close() error",
		"pkg p, type Config struct, Name string",
	}
	slices.Sort(broken)
	slices.Sort(wantBroken)
	if !slices.Equal(broken, wantBroken) {
		t.Errorf("broken:\n\t%s\nwant:\n\t%s", strings.Join(broken, "\n\t"), strings.Join(wantBroken, "\n\t"))
	}
	if !slices.Equal(added, wantAdded) {
		t.Errorf("added:\n\t%s\nwant:\n\t%s", strings.Join(added, "\n\t"), strings.Join(wantAdded, "\n\t"))
	}
}

// check type-checks src as package p.
func check(t *testing.T, src string) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := new(types.Config).Check("p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}
