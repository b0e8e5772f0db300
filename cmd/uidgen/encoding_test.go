package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen"
)

// TestGenParseEncoding: gen -encoding prints each ID as the encoding
// writes it (base32 and base62 at their width, in the IDs' order), and
// parse -encoding reads them back to the worker that made them, as the
// decimal IDs gen prints without it.
func TestGenParseEncoding(t *testing.T) {
	for _, e := range encodings {
		t.Run(e.String(), func(t *testing.T) {
			code, out, stderr := runCLI(t, "gen", "-n", "20", "-worker", "9", "-encoding", e.String())
			if code != 0 {
				t.Fatalf("gen: exit %d: %s", code, stderr)
			}
			lines := strings.Fields(out)
			if len(lines) != 20 {
				t.Fatalf("gen printed %d lines, want 20", len(lines))
			}
			var decimal []string
			for _, l := range lines {
				id, err := e.Parse(l)
				if err != nil || e.Format(id) != l {
					t.Fatalf("gen printed %q, which %v reads as %d, %v", l, e, id, err)
				}
				decimal = append(decimal, uidgen.Decimal.Format(id))
			}
			if (e == uidgen.Base32 || e == uidgen.Base62) && !slices.IsSorted(lines) {
				t.Errorf("%v lines out of order: %q", e, lines)
			}
			code, out, stderr = runCLI(t, append([]string{"parse", "-json", "-encoding", e.String()}, lines...)...)
			if code != 0 {
				t.Fatalf("parse: exit %d: %s", code, stderr)
			}
			dec := json.NewDecoder(strings.NewReader(out))
			for _, want := range decimal {
				var id struct{ UID, WorkerID string }
				if err := dec.Decode(&id); err != nil || id.UID != want || id.WorkerID != "9" {
					t.Fatalf("parse -json gave %+v, %v; want UID %s, worker 9", id, err, want)
				}
			}
		})
	}
}

// TestParseEncodingBaidusString: parse -encoding without -json prints
// Baidu's string, as parse of the decimal ID does.
func TestParseEncodingBaidusString(t *testing.T) {
	_, want, _ := runCLI(t, "parse", "512360392635531266")
	code, got, stderr := runCLI(t, "parse", "-encoding", "base62", uidgen.Base62.Format(512360392635531266))
	if code != 0 || got != want {
		t.Fatalf("exit %d, %q, %s; want %q", code, got, stderr, want)
	}
}

func TestEncodingBadCalls(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"gen", "-encoding", "base64"}, `invalid value "base64" for flag -encoding: unknown encoding: want decimal, base32, base62 or base58`},
		{[]string{"gen", "-encoding", "Base32"}, `want decimal, base32, base62 or base58`},
		{[]string{"parse", "-encoding", "hex", "1"}, `invalid value "hex" for flag -encoding`},
		{[]string{"gen", "-json", "-encoding", "base32"}, "-json and -encoding"},
		{[]string{"gen", "-json", "-encoding", "decimal"}, "-json and -encoding"},
		{[]string{"gen", "-segment", "order", "-encoding", "base32"}, "-encoding does not go with -segment"},
		{[]string{"parse", "-encoding", "base32", "0000000000U00"}, `uidgen parse: bad ID string: "0000000000U00" is not a 64-bit integer in base32: character 11, 'U',`},
		{[]string{"parse", "-encoding", "base62", "abc"}, `"abc" is not a 64-bit integer in base62: 3 characters, want 11`},
		{[]string{"parse", "-encoding", "base58", "zzzzzzzzzzz"}, `uidgen parse: ID out of range: "zzzzzzzzzzz" in base58 is past 2^63-1`},
		{[]string{"parse", "--", "-5"}, `"-5" in decimal is negative`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}
