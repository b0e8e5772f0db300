package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/internal/idtest"
	"github.com/seed4d941b13/uidgen/internal/sizetest"
)

// newKey returns a random key of size bytes in hex, as openssl rand -hex
// writes one.
func newKey(t testing.TB, size int) string {
	t.Helper()
	b := make([]byte, size)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// writeKeyFile writes text to a file of mode perm in a directory of the
// test's own, and returns its path.
func writeKeyFile(t testing.TB, text string, perm os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "keys.hex")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	// WriteFile's mode goes through the umask; Chmod's does not.
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
	return path
}

// keyFile writes a key file of keys, each on a line as openssl rand -hex
// writes it, of mode 0600.
func keyFile(t testing.TB, keys ...string) string {
	t.Helper()
	return writeKeyFile(t, strings.Join(keys, "\n")+"\n", 0o600)
}

// hexRun is a run of hex digits as long as half a 16-byte key: no message
// may show one.
var hexRun = regexp.MustCompile(`[0-9a-fA-F]{16,}`)

// TestKeyFileRefused: gen refuses each kind of key file it cannot use,
// exit 1 with nothing printed, naming the file and the line, and never
// showing a key; a file group or others may read is refused with its mode
// and the chmod that fixes it.
func TestKeyFileRefused(t *testing.T) {
	key := newKey(t, 32)
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		path string // where text is "" and perm 0
		text string
		perm os.FileMode
		want []string
	}{
		{name: "missing", path: filepath.Join(dir, "nosuch"), want: []string{"-opaque-key: no such file (its name is not repeated here, in case it is a key)"}},
		{name: "a key in its place", path: key, want: []string{"-opaque-key: no such file"}},
		{name: "a base64 key in its place", path: "q83vASNFZ4mrze8B/0VniavN7wEjRWeJq83vASNFZ4k=", want: []string{"-opaque-key: no such file"}},
		{name: "directory", path: dir, want: []string{"-opaque-key " + dir + " is a directory"}},
		{name: "empty", perm: 0o600, want: []string{"holds no key: add one with (umask 077; openssl rand -hex 32 >> "}},
		{name: "blank lines only", text: "\n\n \n", perm: 0o600, want: []string{"holds no key"}},
		{name: "not hex", text: key + "\n" + key[:10] + "g" + key[11:] + "\n", perm: 0o600,
			want: []string{": line 2: character 11 is not a hex digit: want a key in hex, as openssl rand -hex 32 writes one"}},
		{name: "base64", text: "q83vASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4k=\n", perm: 0o600, want: []string{": line 1: character 1 is not a hex digit"}},
		{name: "odd", text: key[:63] + "\n", perm: 0o600, want: []string{": line 1: 63 hex digits, an odd number"}},
		{name: "20 bytes", text: key[:40] + "\n", perm: 0o600, want: []string{": line 1: a key of 20 bytes: want 16, 24 or 32 bytes (32, 48 or 64 hex digits)"}},
		{name: "blank line between", text: key + "\n\n" + key + "\n", perm: 0o600, want: []string{": line 2: blank: a key's number is its line's"}},
		{name: "mode 0644", text: key + "\n", perm: 0o644, want: []string{": mode 0644 lets group or others read the keys", "chmod 600 "}},
		{name: "mode 0640", text: key + "\n", perm: 0o640, want: []string{": mode 0640 lets group or others read the keys"}},
		{name: "mode 0604", text: key + "\n", perm: 0o604, want: []string{": mode 0604 lets group or others read the keys"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if tt.perm != 0 {
				path = writeKeyFile(t, tt.text, tt.perm)
				tt.want = append(tt.want, "-opaque-key "+path)
			}
			code, out, stderr := runCLI(t, "gen", "-opaque-key", path, "-worker", "9", "-n", "1")
			if code != 1 || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and nothing printed", code, out, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if hexRun.MatchString(stderr) {
				t.Errorf("stderr %q shows a run of hex digits: part of a key?", stderr)
			}
			if tt.perm == 0 && tt.path != dir && strings.Contains(stderr, tt.path) {
				t.Errorf("stderr %q repeats the name of a file that does not exist, which may be a key", stderr)
			}
		})
	}
}

// TestKeyFileRefusedByEveryCommand: parse and serve read the key file as
// gen does, and refuse it before they parse or listen.
func TestKeyFileRefusedByEveryCommand(t *testing.T) {
	path := writeKeyFile(t, newKey(t, 32)+"\n", 0o644)
	for _, args := range [][]string{
		{"gen", "-opaque-key", path, "-n", "0"},
		{"parse", "-opaque-key", path, "1_1"},
		{"serve", "-opaque-key", path, "-addr", "127.0.0.1:0", "-worker", "3"},
	} {
		code, out, stderr := runCLI(t, args...)
		if want := "-opaque-key " + path + ": mode 0644"; code != 1 || out != "" || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and %q", args, code, out, stderr, want)
		}
	}
}

// TestKeyFileForms: a key file as openssl writes it, and as editors and
// other systems leave it (no last newline, CRLF, upper case, spaces,
// blank lines at the end), holds its keys, of each AES size, numbered by
// line: gen's texts name the last, and are that key's hiding of the IDs
// parse reads them back to.
func TestKeyFileForms(t *testing.T) {
	k16, k24, k32 := newKey(t, 16), newKey(t, 24), newKey(t, 32)
	for _, tt := range []struct {
		name, text string
		keys       []string
	}{
		{"openssl", k32 + "\n", []string{k32}},
		{"no last newline", k32, []string{k32}},
		{"CRLF", k16 + "\r\n" + k32 + "\r\n", []string{k16, k32}},
		{"upper case", strings.ToUpper(k24) + "\n", []string{k24}},
		{"spaces", "  " + k32 + " \n\t" + k16 + "\t\n", []string{k32, k16}},
		{"blank lines at the end", k16 + "\n" + k24 + "\n" + k32 + "\n\n\n", []string{k16, k24, k32}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := writeKeyFile(t, tt.text, 0o600)
			texts := genTexts(t, "-opaque-key", path, "-worker", "9", "-n", "5")
			ids := parseTexts(t, path, texts)
			idtest.Check(t, idtest.As(uidgen.DefaultLayout(), 9), [][]int64{ids})
			o := opaqueOf(t, uidgen.DefaultLayout(), tt.keys...)
			checkHidden(t, o, uidgen.Decimal, ids, texts)
		})
	}
}

// genTexts runs gen with args in this process and returns the lines it
// printed.
func genTexts(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, stderr := runCLI(t, append([]string{"gen"}, args...)...)
	if code != 0 {
		t.Fatalf("gen %v: exit %d: %s", args, code, stderr)
	}
	return strings.Fields(out)
}

// parseTexts runs parse -json -opaque-key path with texts and extra flags
// in this process and returns the IDs it printed, one for each text.
func parseTexts(t *testing.T, path string, texts []string, extra ...string) []int64 {
	t.Helper()
	args := append(append([]string{"parse", "-json", "-opaque-key", path}, extra...), texts...)
	code, out, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("parse -opaque-key of %d texts: exit %d: %s", len(texts), code, stderr)
	}
	return parsedUIDs(t, out, len(texts))
}

// parsedUIDs returns the UIDs of parse -json's output, which must hold n.
func parsedUIDs(t *testing.T, out string, n int) []int64 {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	ids := make([]int64, 0, n)
	for dec.More() {
		var id struct{ UID string }
		if err := dec.Decode(&id); err != nil {
			t.Fatalf("parse -json output after %d IDs: %v", len(ids), err)
		}
		uid, err := strconv.ParseInt(id.UID, 10, 64)
		if err != nil {
			t.Fatalf("parse -json gave UID %q: %v", id.UID, err)
		}
		ids = append(ids, uid)
	}
	if len(ids) != n {
		t.Fatalf("parse printed %d IDs for %d texts", len(ids), n)
	}
	return ids
}

// opaqueOf returns the library's Opaque of layout under the keys, in hex.
func opaqueOf(t testing.TB, layout uidgen.Layout, keys ...string) *uidgen.Opaque {
	t.Helper()
	raw := make([][]byte, len(keys))
	for i, k := range keys {
		var err error
		if raw[i], err = hex.DecodeString(k); err != nil {
			t.Fatal(err)
		}
	}
	o, err := uidgen.NewOpaque(layout, raw...)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// checkHidden fails t unless texts[i] is the text o makes of ids[i]: the
// command hid the IDs under the file's keys as the library does.
func checkHidden(t testing.TB, o *uidgen.Opaque, enc uidgen.Encoding, ids []int64, texts []string) {
	t.Helper()
	for i, id := range ids {
		if want, err := o.Format(id, enc); err != nil || texts[i] != want {
			t.Fatalf("text %d is %q, revealed as %d, which the file's keys hide as %q (%v)", i, texts[i], id, want, err)
		}
	}
}

// parseBatch is how many opaque texts one parse process reads: its
// arguments travel in one environment variable (package fleettest), which
// Linux caps at 128 KiB, and a text is at most 22 bytes with its newline.
const parseBatch = 4000

// TestGenParseOpaque is issue 46's "done when": gen -opaque-key and parse
// -opaque-key, each a process of its own, round-trip 100,000 IDs. The
// texts are unique, carry key 1, and are not in the IDs' order, as near
// half of them below the one before as a random order puts; parse reveals
// each as an ID of gen's worker, in the order gen made them, and the
// library's Opaque under the file's key hides each as gen's text.
func TestGenParseOpaque(t *testing.T) {
	n := sizetest.Pick(100_000, 10_000)
	isolateDB(t)
	key := newKey(t, 32)
	path := keyFile(t, key)
	texts := processLines(t, "gen", "-opaque-key", path, "-worker", "9", "-n", strconv.Itoa(n))
	if len(texts) != n {
		t.Fatalf("gen printed %d texts, want %d", len(texts), n)
	}
	checkTextOrder(t, texts, "1_")
	var ids []int64
	for from := 0; from < n; from += parseBatch {
		batch := texts[from:min(from+parseBatch, n)]
		out := strings.Join(processLines(t, append([]string{"parse", "-json", "-opaque-key", path}, batch...)...), "\n")
		ids = append(ids, parsedUIDs(t, out, len(batch))...)
	}
	idtest.Check(t, idtest.As(uidgen.DefaultLayout(), 9), [][]int64{ids})
	checkHidden(t, opaqueOf(t, uidgen.DefaultLayout(), key), uidgen.Decimal, ids, texts)
}

// processLines runs uidgen with args as a process of its own and returns
// the lines it printed, failing t unless it exits 0.
func processLines(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := uidgenCommand(t, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("uidgen %s ...: %v: %s", args[0], err, stderr.String())
	}
	return strings.Fields(string(out))
}

// checkTextOrder fails t unless every text starts with prefix, then the
// opaque ID in decimal, and the texts are unique and in no order: about
// half of the opaque IDs are below the one before, where the IDs all
// increase. In a random order of n texts the count of descents has mean
// (n-1)/2 and standard deviation sqrt((n+1)/12) (Eulerian numbers); the
// bound is six of those, which a random order passes but once in hundreds
// of millions, and which a sorted order (no descent) fails from 15 texts
// on.
func checkTextOrder(t *testing.T, texts []string, prefix string) {
	t.Helper()
	seen := make(map[string]bool, len(texts))
	var prev int64
	descents := 0
	for i, text := range texts {
		v, err := strconv.ParseInt(strings.TrimPrefix(text, prefix), 10, 64)
		if !strings.HasPrefix(text, prefix) || err != nil || seen[text] {
			t.Fatalf("text %d, %q: want %s and an opaque ID in decimal, once (%v)", i, text, prefix, err)
		}
		seen[text] = true
		if i > 0 && v < prev {
			descents++
		}
		prev = v
	}
	n := float64(len(texts))
	if mean, sd := (n-1)/2, math.Sqrt((n+1)/12); math.Abs(float64(descents)-mean) > 6*sd {
		t.Errorf("%d of %d opaque IDs are below the one before: want %.1f ± %.1f, as in no order", descents, len(texts)-1, mean, 6*sd)
	}
}

// TestOpaqueKeyRotation: appending a key, as openssl rand -hex 32 >> FILE
// does, makes gen's texts carry key 2, while the texts made under key 1
// still reveal the IDs they did; a file of key 1 alone refuses key 2's
// texts, naming the key.
func TestOpaqueKeyRotation(t *testing.T) {
	k1, k2 := newKey(t, 32), newKey(t, 32)
	path := keyFile(t, k1)
	old := genTexts(t, "-opaque-key", path, "-worker", "9", "-n", "50")
	checkTextOrder(t, old, "1_")
	oldIDs := parseTexts(t, path, old)
	oneKey := keyFile(t, k1)

	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(k2 + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	rotated := genTexts(t, "-opaque-key", path, "-worker", "9", "-n", "50")
	checkTextOrder(t, rotated, "2_")

	ids := parseTexts(t, path, append(old, rotated...))
	for i, id := range ids[:len(old)] {
		if id != oldIDs[i] {
			t.Fatalf("after the rotation, %q reveals %d; before it, %d", old[i], id, oldIDs[i])
		}
	}
	// One sequence: the second gen's IDs are above the first's.
	idtest.Check(t, idtest.As(uidgen.DefaultLayout(), 9), [][]int64{ids})
	checkHidden(t, opaqueOf(t, uidgen.DefaultLayout(), k1, k2), uidgen.Decimal, ids[len(old):], rotated)

	code, out, stderr := runCLI(t, "parse", "-opaque-key", oneKey, rotated[0])
	if want := `opaque ID "` + rotated[0] + `" names key 2`; code != 2 || out != "" || !strings.Contains(stderr, want) {
		t.Errorf("parse of key 2's text with key 1 alone: exit %d, stdout %q, stderr %q; want 2 and %q", code, out, stderr, want)
	}
}

// TestGenParseOpaqueEncodings: gen -opaque-key writes the opaque ID in
// -encoding, and parse -opaque-key reads it in the same one, in a
// JavaScript-safe layout too, whose opaque IDs stay below 2^53.
func TestGenParseOpaqueEncodings(t *testing.T) {
	key := newKey(t, 16)
	path := keyFile(t, key)
	js := []string{"-time-bits", "31", "-worker-bits", "8", "-seq-bits", "11", "-gene-bits", "3"}
	jsLayout := idtest.Layout(t, bits.Spec{TimeBits: 31, WorkerBits: 8, SeqBits: 11, GeneBits: 3})
	for _, e := range encodings {
		for _, layout := range []struct {
			name  string
			flags []string
			uid   uidgen.Layout
		}{{"default", nil, uidgen.DefaultLayout()}, {"53-bit", js, jsLayout}} {
			t.Run(e.String()+"/"+layout.name, func(t *testing.T) {
				flags := append([]string{"-encoding", e.String()}, layout.flags...)
				texts := genTexts(t, append([]string{"-opaque-key", path, "-worker", "9", "-n", "20"}, flags...)...)
				ids := parseTexts(t, path, texts, flags...)
				idtest.Check(t, idtest.As(layout.uid, 9), [][]int64{ids})
				o := opaqueOf(t, layout.uid, key)
				checkHidden(t, o, e, ids, texts)
				for _, text := range texts {
					if v, err := e.Parse(strings.TrimPrefix(text, "1_")); err != nil || len(layout.flags) > 0 && v >= 1<<53 {
						t.Fatalf("%q: the opaque ID %d is not below 2^53 in %v (%v)", text, v, e, err)
					}
				}
			})
		}
	}
}

// TestOpaqueBadCalls: -opaque-key with the flags that would show what it
// hides, or that hand out what it cannot hide, and texts parse cannot
// read, are usage errors that name them.
func TestOpaqueBadCalls(t *testing.T) {
	path := keyFile(t, newKey(t, 32))
	js := []string{"-time-bits", "31", "-worker-bits", "8", "-seq-bits", "11", "-gene-bits", "3"}
	testBadCalls(t, []badCall{
		{[]string{"gen", "-opaque-key", path, "-json"}, "-opaque-key and -json: -json shows what the opaque ID hides; pick one"},
		{[]string{"gen", "-opaque-key", path, "-format", "{yyyy}{MM}{dd}{HH}{mm}{ss}{seq:6}"}, "-opaque-key and -format: -format shows what the opaque ID hides"},
		{[]string{"gen", "-opaque-key", path, "-segment", "order"}, "-opaque-key does not go with -segment"},
		{[]string{"gen", "-opaque-key", "", "-n", "1"}, `-opaque-key "": want the key file`},
		{[]string{"gen", "-opaque-key", path, "-time-bits", "8", "-worker-bits", "4", "-seq-bits", "4"}, "FF1 needs a space of at least a million"},
		{[]string{"parse", "-opaque-key", path, "-format", "{yyyy}", "1_1"}, "-opaque-key and -format: a string is in one or the other"},
		{[]string{"parse", "-opaque-key", "", "1_1"}, `-opaque-key "": want the key file`},
		{[]string{"parse", "-opaque-key", path, "512360392635531266"}, `opaque ID "512360392635531266": want a key number, an underscore and an ID in decimal`},
		{[]string{"parse", "-opaque-key", path, "0_5"}, `opaque ID "0_5": want a key number`},
		{[]string{"parse", "-opaque-key", path, "2_5"}, `opaque ID "2_5" names key 2`},
		{[]string{"parse", "-opaque-key", path, "1_x"}, `opaque ID "1_x": bad ID string`},
		{[]string{"parse", "-opaque-key", path, "-encoding", "base62", "1_abc"}, `opaque ID "1_abc": bad ID string`},
		{append(append([]string{"parse", "-opaque-key", path}, js...), "1_9007199254740992"), `opaque ID "1_9007199254740992": ID out of range: its number 9007199254740992 is outside the layout's 53-bit space, 0 to 9007199254740991`},
	})
}

// TestParseWarnsOfTheWrongKeys: every text reveals to some ID, so parse
// under the wrong key file prints one and exits 0; where its time lies
// more than a day past the clock, as a wrong key's mostly does, it warns
// on stderr. The right keys reveal the ID with no warning. The keys and
// the ID are fixed, so the wrong reveal is too.
func TestParseWarnsOfTheWrongKeys(t *testing.T) {
	right, wrong := strings.Repeat("0123456789abcdef", 4), strings.Repeat("fedcba9876543210", 4)
	layout := uidgen.DefaultLayout()
	id := layout.Bits().Allocate(layout.TickOf(time.Date(2026, 11, 22, 8, 30, 0, 0, time.UTC)), 9, 0)
	text, err := opaqueOf(t, layout, right).Format(id, uidgen.Decimal)
	if err != nil {
		t.Fatal(err)
	}
	revealed, err := opaqueOf(t, layout, wrong).Parse(text, uidgen.Decimal)
	if err != nil {
		t.Fatal(err)
	}
	if at := layout.Parse(revealed).Time; time.Until(at) < 365*24*time.Hour {
		t.Fatalf("the wrong key reveals %q as an ID of %v: the test wants one years ahead", text, at)
	}
	code, out, stderr := runCLI(t, "parse", "-opaque-key", keyFile(t, wrong), text)
	if code != 0 || !strings.Contains(out, strconv.FormatInt(revealed, 10)) || !strings.Contains(stderr, "warning: "+strconv.Quote(text)) {
		t.Errorf("parse under the wrong key: exit %d, stdout %q, stderr %q; want 0, ID %d and a warning naming the text", code, out, stderr, revealed)
	}
	code, out, stderr = runCLI(t, "parse", "-opaque-key", keyFile(t, right), text)
	if code != 0 || !strings.Contains(out, strconv.FormatInt(id, 10)) || stderr != "" {
		t.Errorf("parse under the right key: exit %d, stdout %q, stderr %q; want 0, ID %d and no warning", code, out, stderr, id)
	}
}
