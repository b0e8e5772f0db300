package uidgen_test

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen"
)

// TestUIDRoundTrips: text, JSON and SQL give back every UID, 0 and
// 2^63-1 included.
func TestUIDRoundTrips(t *testing.T) {
	for _, id := range testIDs(1_000) {
		u := uidgen.UID(id)
		text, err := u.MarshalText()
		var fromText uidgen.UID
		if err != nil || string(text) != u.String() || fromText.UnmarshalText(text) != nil || fromText != u {
			t.Fatalf("text of %d: %q, %v, read back as %d", id, text, err, fromText)
		}
		j, err := json.Marshal(u)
		var fromJSON uidgen.UID
		if err != nil || string(j) != `"`+u.String()+`"` || json.Unmarshal(j, &fromJSON) != nil || fromJSON != u {
			t.Fatalf("JSON of %d: %s, %v, read back as %d", id, j, err, fromJSON)
		}
		v, err := u.Value()
		var fromSQL uidgen.UID
		if err != nil || v != id || fromSQL.Scan(v) != nil || fromSQL != u {
			t.Fatalf("Value of %d: %v, %v, scanned back as %d", id, v, err, fromSQL)
		}
	}
}

func TestUIDString(t *testing.T) {
	for _, id := range []int64{0, 7, math.MaxInt64, -5} {
		if got, want := uidgen.UID(id).String(), uidgen.Decimal.Format(id); got != want {
			t.Errorf("UID(%d).String() = %q, want Decimal's %q", id, got, want)
		}
	}
}

// TestUIDJSON: a UID is a string in JSON, in a struct too; a number, a
// string and null read; anything else is an error naming the input that
// leaves the UID as it was.
func TestUIDJSON(t *testing.T) {
	type order struct {
		ID    uidgen.UID  `json:"id"`
		Ref   *uidgen.UID `json:"ref"`
		Total int         `json:"total"`
	}
	b, err := json.Marshal(order{ID: 512360392635531266, Total: 3})
	if want := `{"id":"512360392635531266","ref":null,"total":3}`; err != nil || string(b) != want {
		t.Fatalf("Marshal = %s, %v; want %s", b, err, want)
	}
	for in, want := range map[string]uidgen.UID{
		`{"id":"512360392635531266"}`:                  512360392635531266,
		`{"id":512360392635531266}`:                    512360392635531266,
		`{"id":"0"}`:                                   0,
		`{"id":9223372036854775807}`:                   math.MaxInt64,
		`{"id":null}`:                                  42, // unchanged
		`{"id":"00042", "ref":"7"}`:                    42,
		`{"id" : "9223372036854775807" , "total" : 1}`: math.MaxInt64,
	} {
		o := order{ID: 42}
		if err := json.Unmarshal([]byte(in), &o); err != nil || o.ID != want {
			t.Errorf("Unmarshal(%s) = %d, %v; want %d", in, o.ID, err, want)
		}
	}
	tests := []struct {
		in   string
		is   error
		want string
	}{
		{`"12x"`, uidgen.ErrIDSyntax, `"12x" is not a 64-bit integer in decimal: character 3, 'x',`},
		{`""`, uidgen.ErrIDSyntax, `empty`},
		{`-5`, uidgen.ErrIDRange, `"-5" in decimal is negative`},
		{`"-5"`, uidgen.ErrIDRange, `negative`},
		{`1.5`, uidgen.ErrIDSyntax, `character 2, '.',`},
		{`1e18`, uidgen.ErrIDSyntax, `character 2, 'e',`},
		{`9223372036854775808`, uidgen.ErrIDRange, `past 2^63-1`},
		{`"\u0031"`, uidgen.ErrIDSyntax, `character 1, '\\',`},
		{`true`, uidgen.ErrIDSyntax, `character 1, 't',`},
		{`{}`, uidgen.ErrIDSyntax, `character 1, '{',`},
		{`"7`, uidgen.ErrIDSyntax, `character 1, '"',`},
		{``, uidgen.ErrIDSyntax, `empty`},
	}
	for _, tt := range tests {
		u := uidgen.UID(42)
		err := u.UnmarshalJSON([]byte(tt.in))
		if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) || u != 42 {
			t.Errorf("UnmarshalJSON(%s) = %v, UID %d; want %v saying %q, UID 42", tt.in, err, u, tt.is, tt.want)
		}
	}
	// Through encoding/json, which checks the JSON first.
	var o order
	if err := json.Unmarshal([]byte(`{"id":"12x"}`), &o); !errors.Is(err, uidgen.ErrIDSyntax) {
		t.Errorf(`Unmarshal({"id":"12x"}) = %v, want ErrIDSyntax`, err)
	}
	if err := json.Unmarshal([]byte(`{"id":[1]}`), &o); !errors.Is(err, uidgen.ErrIDSyntax) {
		t.Errorf(`Unmarshal({"id":[1]}) = %v, want ErrIDSyntax`, err)
	}
}

func TestUIDText(t *testing.T) {
	u := uidgen.UID(42)
	for _, in := range []string{"", "x", "-1", "12345678901234567890", "9223372036854775808"} {
		if err := u.UnmarshalText([]byte(in)); err == nil || u != 42 {
			t.Errorf("UnmarshalText(%q) = %v, UID %d; want an error, 42", in, err, u)
		}
	}
}

// TestUIDSQL: Scan takes a BIGINT as drivers give it (int64, or decimal
// text as []byte or string), refuses NULL and other types, and leaves the
// UID as it was on an error.
func TestUIDSQL(t *testing.T) {
	for _, src := range []any{int64(512360392635531266), []byte("512360392635531266"), "512360392635531266"} {
		var u uidgen.UID
		if err := u.Scan(src); err != nil || u != 512360392635531266 {
			t.Errorf("Scan(%#v) = %d, %v", src, u, err)
		}
	}
	tests := []struct {
		src  any
		is   error // nil: any error, saying want
		want string
	}{
		{nil, nil, "scanning NULL into a UID: 0 is an ID; scan a nullable column into *UID or sql.Null[UID]"},
		{int64(-1), uidgen.ErrIDRange, "UID -1 is negative"},
		{[]byte("12x"), uidgen.ErrIDSyntax, `"12x" is not a 64-bit integer in decimal`},
		{"", uidgen.ErrIDSyntax, "empty"},
		{"-1", uidgen.ErrIDRange, "negative"},
		{1.5, nil, "scanning float64 into a UID: want int64, []byte or string"},
		{true, nil, "scanning bool into a UID"},
	}
	for _, tt := range tests {
		u := uidgen.UID(42)
		err := u.Scan(tt.src)
		if err == nil || tt.is != nil && !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) || u != 42 {
			t.Errorf("Scan(%#v) = %v, UID %d; want an error saying %q, UID 42", tt.src, err, u, tt.want)
		}
	}
	// A nullable column scans into sql.Null[UID].
	var n sql.Null[uidgen.UID]
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Errorf("sql.Null[UID].Scan(nil) = %+v, %v", n, err)
	}
	if err := n.Scan(int64(7)); err != nil || !n.Valid || n.V != 7 {
		t.Errorf("sql.Null[UID].Scan(7) = %+v, %v", n, err)
	}
	var _ driver.Valuer = uidgen.UID(0)
	var _ sql.Scanner = (*uidgen.UID)(nil)
}

// TestUIDNegative: every method of a UID that can fail refuses a negative
// one; String prints it.
func TestUIDNegative(t *testing.T) {
	u := uidgen.UID(-5)
	if _, err := u.MarshalText(); !errors.Is(err, uidgen.ErrIDRange) {
		t.Errorf("MarshalText = %v, want ErrIDRange", err)
	}
	if _, err := json.Marshal(u); !errors.Is(err, uidgen.ErrIDRange) || !strings.Contains(err.Error(), "UID -5 is negative") {
		t.Errorf("json.Marshal = %v, want ErrIDRange naming -5", err)
	}
	if _, err := u.Value(); !errors.Is(err, uidgen.ErrIDRange) {
		t.Errorf("Value = %v, want ErrIDRange", err)
	}
	if s := u.String(); s != "-5" {
		t.Errorf("String = %q", s)
	}
}

func BenchmarkUIDJSON(b *testing.B) {
	b.ReportAllocs()
	u := uidgen.UID(512360392635531266)
	for b.Loop() {
		if _, err := json.Marshal(u); err != nil {
			b.Fatal(err)
		}
	}
}
