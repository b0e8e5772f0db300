// Package docs_test runs the documentation, so that it cannot drift from
// the code unnoticed: every ```go block of README.md and docs/*.md is
// compiled, and every ```sh block marked run is run, its shown output
// compared. A failure names the file and line of the block.
//
// A ```go block is, by the first word after "go" in its info string:
//   - (nothing): statements, compiled inside a function that returns an
//     error and has these in scope: ctx context.Context, db *sql.DB,
//     a uidgen.Assigner, g *cached.Generator, e time.Time, and lastID and
//     userID int64. Import lines at its top go to the file's imports; other
//     imports are added for the packages it names (uidgen, cached, worker,
//     fmt, ...). The block's own variables must be used, as in a program.
//   - expr: one Go expression a line, each compiled as `_ = EXPR` there.
//   - program: a whole program, compiled as it is.
//
// A ```sh block whose info string says run ("```sh run") is run a line at a
// time by bash, with the uidgen command built from this tree first on PATH,
// its SQLite file in a directory of the test's own, each block in an empty
// working directory of its own, and the MySQL and
// PostgreSQL DSNs the docs show replaced by databases of the test's own on
// the test's servers (package dbtest). Each line must exit 0. A line that
// starts with "# " right after a command is that command's output, shown:
// the command's output must match it with each run of digits free to be
// other digits (IDs and times vary, their shape does not).
package docs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/internal/dbtest"
)

// block is one fenced code block of a Markdown file.
type block struct {
	file string   // relative to the repository's root
	line int      // of the first line of the body
	info []string // the info string's words: "go", "program"
	body []string // lines, the fence's indentation removed
}

func (b block) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docs returns the Markdown files the test reads, relative to the root.
func docs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		files[i] = filepath.Join("docs", f)
	}
	return append([]string{"README.md"}, files...)
}

// blocks returns the fenced blocks of the Markdown files whose info string
// starts with lang.
func blocks(t *testing.T, lang string) []block {
	t.Helper()
	var all []block
	for _, file := range docs(t) {
		data, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		var cur *block
		indent := ""
		for i, line := range strings.Split(string(data), "\n") {
			trimmed := strings.TrimLeft(line, " ")
			if !strings.HasPrefix(trimmed, "```") {
				if cur != nil {
					cur.body = append(cur.body, strings.TrimPrefix(line, indent))
				}
				continue
			}
			if cur != nil {
				if cur.info[0] == lang {
					all = append(all, *cur)
				}
				cur = nil
				continue
			}
			info := strings.Fields(strings.TrimPrefix(trimmed, "```"))
			if len(info) == 0 {
				info = []string{""}
			}
			indent = line[:len(line)-len(trimmed)]
			cur = &block{file: file, line: i + 2, info: info}
		}
		if cur != nil {
			t.Errorf("%s:%d: a ``` block is never closed", file, cur.line-1)
		}
	}
	return all
}

// imports maps what a Go block may name to the package it names.
var imports = map[string]string{
	"context":     "context",
	"sql":         "database/sql",
	"fmt":         "fmt",
	"hex":         "encoding/hex",
	"http":        "net/http",
	"os":          "os",
	"time":        "time",
	"uidgen":      "github.com/seed4d941b13/uidgen",
	"bits":        "github.com/seed4d941b13/uidgen/bits",
	"cached":      "github.com/seed4d941b13/uidgen/cached",
	"defaultgen":  "github.com/seed4d941b13/uidgen/defaultgen",
	"segment":     "github.com/seed4d941b13/uidgen/segment",
	"worker":      "github.com/seed4d941b13/uidgen/worker",
	"etcdworker":  "github.com/seed4d941b13/uidgen/etcdworker",
	"redisworker": "github.com/seed4d941b13/uidgen/redisworker",
	"metrics":     "github.com/seed4d941b13/uidgen/metrics",
	"prometheus":  "github.com/prometheus/client_golang/prometheus",
	"promhttp":    "github.com/prometheus/client_golang/prometheus/promhttp",
	"redis":       "github.com/redis/go-redis/v9",
}

// scaffoldImports are the imports the scaffold's own parameters use.
var scaffoldImports = []string{"context", "sql", "time", "uidgen", "cached"}

// source returns the Go file that compiles b, and the line of the file
// that the block's first line is on (0 where the file is the block).
func source(b block) (string, int, error) {
	kind := ""
	if len(b.info) > 1 {
		kind = b.info[1]
	}
	switch kind {
	case "program":
		return strings.Join(b.body, "\n"), 1, nil
	case "", "expr":
	default:
		return "", 0, fmt.Errorf("unknown marker %q after go: want none, expr or program", kind)
	}
	var own []string // the block's own import lines
	body := b.body
	first := 0
	for first < len(body) && (strings.HasPrefix(body[first], "import ") || strings.TrimSpace(body[first]) == "") {
		if spec := strings.TrimPrefix(body[first], "import "); spec != body[first] {
			own = append(own, spec)
		}
		first++
	}
	stmts := body[first:]
	if kind == "expr" {
		stmts = slices.Clone(stmts)
		for i, s := range stmts {
			if strings.TrimSpace(s) != "" {
				stmts[i] = "_ = " + s
			}
		}
	}
	text := strings.Join(stmts, "\n")
	names := slices.Clone(scaffoldImports)
	for name, path := range imports {
		if slices.Contains(names, name) || slices.ContainsFunc(own, func(spec string) bool { return strings.Contains(spec, `"`+path+`"`) }) {
			continue
		}
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(text) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var f strings.Builder
	f.WriteString("package main\n\nimport (\n")
	for _, n := range names {
		fmt.Fprintf(&f, "\t%q\n", imports[n])
	}
	for _, spec := range own {
		fmt.Fprintf(&f, "\t%s\n", spec)
	}
	f.WriteString(")\n\nfunc main() {}\n\n")
	f.WriteString("func snippet(ctx context.Context, db *sql.DB, a uidgen.Assigner, g *cached.Generator, e time.Time, lastID, userID int64) error {\n")
	f.WriteString("\t_, _, _, _, _, _, _ = ctx, db, a, g, e, lastID, userID\n\t{\n")
	start := strings.Count(f.String(), "\n") + 1 - first
	f.WriteString(text)
	f.WriteString("\n\t}\n\treturn nil\n}\n")
	return f.String(), start, nil
}

// compileError is a line of the compiler's answer about a generated file.
var compileError = regexp.MustCompile(`/(\d+)\.go:(\d+)(?::\d+)?: (.*)`)

// TestGoBlocks compiles every ```go block, all in one go build, and names
// each compiler error by the block's file and line.
func TestGoBlocks(t *testing.T) {
	all := blocks(t, "go")
	if len(all) < 10 {
		t.Fatalf("found %d go blocks, want the docs' dozen or more: does the parser still find them?", len(all))
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	overlay := map[string]string{}
	starts := make([]int, len(all))
	var pkgs []string
	for i, b := range all {
		src, start, err := source(b)
		if err != nil {
			t.Errorf("%v: %v", b, err)
			continue
		}
		starts[i] = start
		file := filepath.Join(dir, strconv.Itoa(i)+".go")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		// The package lives in the module only in the overlay, so it sees
		// the module's packages and dependencies and leaves no file in the
		// tree.
		pkg := fmt.Sprintf("internal/docsgen/b%d", i)
		overlay[filepath.Join(root, pkg, "main.go")] = file
		pkgs = append(pkgs, "./"+pkg)
	}
	data, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	ovl := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovl, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", append([]string{"build", "-overlay", ovl, "-o", os.DevNull}, pkgs...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	named := 0
	for _, line := range strings.Split(string(out), "\n") {
		m := compileError.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		i, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		b := all[i]
		t.Errorf("%s:%d: %s", b.file, b.line+n-starts[i], m[3])
		named++
	}
	if named == 0 {
		t.Errorf("go build of the docs' blocks: %v\n%s", err, out)
	}
}

// TestSource checks the scaffold on a fragment that compiles and one that
// does not, so that TestGoBlocks's passing means the blocks compile: a
// scaffold that hid errors would fail here.
func TestSource(t *testing.T) {
	src, start, err := source(block{info: []string{"go"}, body: []string{
		`import _ "modernc.org/sqlite"`, "", "id, err := g.NextID()", "fmt.Println(id, err)"}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(src, "\n")
	if got := lines[start-1+2]; got != "id, err := g.NextID()" {
		t.Errorf("the block's third line is the file's line %d, %q; want its first statement", start+2, got)
	}
	for _, want := range []string{`_ "modernc.org/sqlite"`, `"fmt"`, `"github.com/seed4d941b13/uidgen/cached"`} {
		if !strings.Contains(src, want) {
			t.Errorf("no import %s in\n%s", want, src)
		}
	}
	if strings.Contains(src, `"github.com/seed4d941b13/uidgen/worker"`) {
		t.Errorf("an import the block does not use, which would not compile:\n%s", src)
	}
	if _, _, err := source(block{info: []string{"go", "nonsense"}}); err == nil {
		t.Error("an unknown marker was taken")
	}
}

// dsns are the DSNs the docs show, which the runnable blocks' lines get
// with databases of the test's own in their place; a DSN that another
// starts with comes after it, so the longer is replaced whole.
var dsns = []struct{ shown, kind string }{
	{"root@tcp(127.0.0.1:3306)/test", "mysql"},
	{"postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "postgres"},
	{"postgres://postgres@127.0.0.1:5432/test", "postgres"},
}

// TestShellBlocks runs every ```sh run block, a line at a time, and
// compares each output the block shows.
func TestShellBlocks(t *testing.T) {
	var runnable []block
	for _, b := range blocks(t, "sh") {
		if slices.Contains(b.info[1:], "run") {
			runnable = append(runnable, b)
		}
	}
	if len(runnable) == 0 {
		t.Fatal("no ```sh run block: does the parser still find them?")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "uidgen"), "./cmd/uidgen")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build uidgen: %v\n%s", err, out)
	}
	// A database of the test's own on each server, for every block.
	servers := map[string]string{}
	for _, kind := range dbtest.ServerKinds {
		servers[kind] = dbtest.Shared(t, kind).Database(t).DSN
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_STATE_HOME="+t.TempDir(), "UIDGEN_DB=", "UIDGEN_DSN=")
	for _, b := range runnable {
		t.Run(b.String(), func(t *testing.T) {
			dir := t.TempDir() // the block's files, as order.key, go in a directory of its own
			for i := 0; i < len(b.body); i++ {
				line := strings.TrimSpace(b.body[i])
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				for _, d := range dsns {
					line = strings.ReplaceAll(line, d.shown, servers[d.kind])
				}
				var want []string
				for i+1 < len(b.body) && strings.HasPrefix(b.body[i+1], "# ") {
					i++
					want = append(want, strings.TrimPrefix(b.body[i], "# "))
				}
				out := run(t, b, i, line, dir, env)
				if len(want) > 0 && !shaped(strings.Join(want, "\n"), out) {
					t.Errorf("%s:%d: %s printed\n%s\nwhich is not shaped as the doc shows:\n%s",
						b.file, b.line+i-len(want), line, out, strings.Join(want, "\n"))
				}
			}
		})
	}
}

// run runs line, the i-th of b, under bash with env, and returns its
// output without its trailing newline; a failure names the doc's line.
func run(t *testing.T, b block, i int, line, dir string, env []string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s:%d: %s: %v\n%s%s", b.file, b.line+i, line, err, stdout.String(), stderr.String())
	}
	return strings.TrimRight(stdout.String(), "\n")
}

// digits is a run of digits, which may be other digits in the output.
var digits = regexp.MustCompile(`[0-9]+`)

// shaped reports whether out is want with each run of digits free to be
// any run of digits, line for line.
func shaped(want, out string) bool {
	var re strings.Builder
	re.WriteString(`^`)
	last := 0
	for _, m := range digits.FindAllStringIndex(want, -1) {
		re.WriteString(regexp.QuoteMeta(want[last:m[0]]))
		re.WriteString(`[0-9]+`)
		last = m[1]
	}
	re.WriteString(regexp.QuoteMeta(want[last:]))
	re.WriteString(`$`)
	return regexp.MustCompile(re.String()).MatchString(out)
}

// TestShaped: digits may differ, nothing else.
func TestShaped(t *testing.T) {
	for _, tt := range []struct {
		want, out string
		ok        bool
	}{
		{`{"uid":"175928847299117063","time":"2016-04-30T11:18:25.796Z"}`, `{"uid":"1","time":"2026-11-27T03:20:00.1Z"}`, true},
		{`{"uid":"1"}`, `{"id":"1"}`, false},
		{`69.7 years`, `69.7 years and more`, false},
		{"a\nb", "a\nb", true},
	} {
		if got := shaped(tt.want, tt.out); got != tt.ok {
			t.Errorf("shaped(%q, %q) = %v, want %v", tt.want, tt.out, got, tt.ok)
		}
	}
}
