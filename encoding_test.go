package uidgen_test

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/seed4d941b13/uidgen"
)

// encodings is every Encoding, with what an oracle needs to write its
// strings independently of it: the alphabet, and the width of a fixed-width
// encoding (0: as short as the number allows).
var encodings = []struct {
	enc      uidgen.Encoding
	alphabet string
	width    int
	sorts    bool // the docs promise bytewise order for IDs >= 0
}{
	{uidgen.Decimal, "0123456789", 0, false},
	{uidgen.Base32, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 13, true},
	{uidgen.Base62, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 11, true},
	{uidgen.Base58, "123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ", 0, false},
}

// oracle writes id in base len(alphabet) with math/big, digit by digit.
func oracle(id int64, alphabet string, width int) string {
	n := big.NewInt(id)
	base := big.NewInt(int64(len(alphabet)))
	var digits []byte
	for d := new(big.Int); n.Sign() > 0; {
		n.QuoRem(n, base, d)
		digits = append([]byte{alphabet[d.Int64()]}, digits...)
	}
	for len(digits) < max(width, 1) {
		digits = append([]byte{alphabet[0]}, digits...)
	}
	return string(digits)
}

// testIDs returns the edge IDs (0, 1, each power of two and one less,
// 2^63-1) and n random ones of every magnitude, from a fixed seed.
func testIDs(n int) []int64 {
	ids := []int64{0, 1, math.MaxInt64}
	for k := range 63 {
		ids = append(ids, 1<<k, 1<<k-1, 1<<k+1)
	}
	r := rand.New(rand.NewPCG(36, 2))
	for range n {
		ids = append(ids, r.Int64()>>r.IntN(63))
	}
	return ids
}

func TestEncodingRoundTrips(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 1_000
	}
	ids := testIDs(n)
	for _, e := range encodings {
		t.Run(e.enc.String(), func(t *testing.T) {
			for _, id := range ids {
				s := e.enc.Format(id)
				if want := oracle(id, e.alphabet, e.width); s != want {
					t.Fatalf("Format(%d) = %q, want %q", id, s, want)
				}
				got, err := e.enc.Parse(s)
				if err != nil || got != id {
					t.Fatalf("Parse(Format(%d) = %q) = %d, %v", id, s, got, err)
				}
			}
		})
	}
}

func TestEncodingEdges(t *testing.T) {
	tests := []struct {
		enc                 uidgen.Encoding
		zero, one, maxInt64 string
	}{
		{uidgen.Decimal, "0", "1", "9223372036854775807"},
		{uidgen.Base32, "0000000000000", "0000000000001", "7ZZZZZZZZZZZZ"},
		{uidgen.Base62, "00000000000", "00000000001", "AzL8n0Y58m7"},
		{uidgen.Base58, "1", "2", "npL6MjP8Qfc"},
	}
	for _, tt := range tests {
		for id, want := range map[int64]string{0: tt.zero, 1: tt.one, math.MaxInt64: tt.maxInt64} {
			if got := tt.enc.Format(id); got != want {
				t.Errorf("%v.Format(%d) = %q, want %q", tt.enc, id, got, want)
			}
		}
	}
}

// TestEncodingSortOrder: for IDs a < b, Base32's and Base62's strings
// compare as the IDs do; Decimal's and Base58's, which the docs do not
// claim to sort, have pairs that do not.
func TestEncodingSortOrder(t *testing.T) {
	ids := testIDs(20_000)
	for _, e := range encodings {
		t.Run(e.enc.String(), func(t *testing.T) {
			var misordered [2]int64
			found := false
			for i := 1; i < len(ids); i++ {
				a, b := min(ids[i-1], ids[i]), max(ids[i-1], ids[i])
				if a == b {
					continue
				}
				if strings.Compare(e.enc.Format(a), e.enc.Format(b)) >= 0 {
					misordered, found = [2]int64{a, b}, true
					break
				}
			}
			switch {
			case e.sorts && found:
				t.Fatalf("%d < %d, but %q >= %q", misordered[0], misordered[1],
					e.enc.Format(misordered[0]), e.enc.Format(misordered[1]))
			case !e.sorts && !found:
				t.Fatalf("every pair sorted: the docs should promise %v sorts", e.enc)
			}
		})
	}
}

func TestEncodingBadInput(t *testing.T) {
	tests := []struct {
		enc  uidgen.Encoding
		in   string
		is   error
		want string
	}{
		{uidgen.Decimal, "", uidgen.ErrIDSyntax, `"" is not a 64-bit integer in decimal: empty, want 1 to 19`},
		{uidgen.Decimal, "12x", uidgen.ErrIDSyntax, `"12x" is not a 64-bit integer in decimal: character 3, 'x', is not one of 0-9`},
		{uidgen.Decimal, "+5", uidgen.ErrIDSyntax, `character 1, '+',`},
		{uidgen.Decimal, "-", uidgen.ErrIDSyntax, `character 1, '-',`},
		{uidgen.Decimal, "-5", uidgen.ErrIDRange, `"-5" in decimal is negative`},
		{uidgen.Decimal, "1 ", uidgen.ErrIDSyntax, `character 2, ' ',`},
		{uidgen.Decimal, "12345678901234567890", uidgen.ErrIDSyntax, `20 characters, want 1 to 19`},
		{uidgen.Decimal, "9223372036854775808", uidgen.ErrIDRange, `"9223372036854775808" in decimal is past 2^63-1`},
		{uidgen.Decimal, "9999999999999999999", uidgen.ErrIDRange, `past 2^63-1`},
		{uidgen.Base32, "", uidgen.ErrIDSyntax, `"" is not a 64-bit integer in base32: empty, want 13`},
		{uidgen.Base32, "0000000000U00", uidgen.ErrIDSyntax, `character 11, 'U', is not one of 0-9 and A-Z but U, in either case`},
		{uidgen.Base32, "000000-000000", uidgen.ErrIDSyntax, `character 7, '-',`},
		{uidgen.Base32, "héllo00000000", uidgen.ErrIDSyntax, `character 2, 'é',`},
		{uidgen.Base32, "000000000000\xff", uidgen.ErrIDSyntax, `character 13, byte 0xff,`},
		{uidgen.Base32, "000000000000", uidgen.ErrIDSyntax, `"000000000000" is not a 64-bit integer in base32: 12 characters, want 13`},
		{uidgen.Base32, "00000000000000", uidgen.ErrIDSyntax, `14 characters, want 13`},
		{uidgen.Base32, "8000000000000", uidgen.ErrIDRange, `"8000000000000" in base32 is past 2^63-1`},
		{uidgen.Base32, "ZZZZZZZZZZZZZ", uidgen.ErrIDRange, `past 2^63-1`},
		{uidgen.Base62, "", uidgen.ErrIDSyntax, `empty, want 11`},
		{uidgen.Base62, "0000000000_", uidgen.ErrIDSyntax, `character 11, '_', is not one of 0-9, A-Z and a-z`},
		{uidgen.Base62, "0000000000", uidgen.ErrIDSyntax, `10 characters, want 11`},
		{uidgen.Base62, "AzL8n0Y58m8", uidgen.ErrIDRange, `"AzL8n0Y58m8" in base62 is past 2^63-1`},
		{uidgen.Base62, "zzzzzzzzzzz", uidgen.ErrIDRange, `past 2^63-1`},
		{uidgen.Base58, "", uidgen.ErrIDSyntax, `empty, want 1 to 11`},
		{uidgen.Base58, "0", uidgen.ErrIDSyntax, `character 1, '0', is not one of 1-9, a-z but l, and A-Z but I and O`},
		{uidgen.Base58, "abcl", uidgen.ErrIDSyntax, `character 4, 'l',`},
		{uidgen.Base58, "I", uidgen.ErrIDSyntax, `character 1, 'I',`},
		{uidgen.Base58, "O", uidgen.ErrIDSyntax, `character 1, 'O',`},
		{uidgen.Base58, "222222222222", uidgen.ErrIDSyntax, `12 characters, want 1 to 11`},
		{uidgen.Base58, "npL6MjP8Qfd", uidgen.ErrIDRange, `"npL6MjP8Qfd" in base58 is past 2^63-1`},
		{uidgen.Base58, "ZZZZZZZZZZZ", uidgen.ErrIDRange, `past 2^63-1`},
		// Long text is cut in the message, and its fault still named.
		{uidgen.Decimal, strings.Repeat("1", 1000) + "x", uidgen.ErrIDSyntax,
			`"11111111111111111111111111111111"... is not a 64-bit integer in decimal: character 1001, 'x',`},
	}
	for _, tt := range tests {
		t.Run(tt.enc.String()+" "+tt.in, func(t *testing.T) {
			id, err := tt.enc.Parse(tt.in)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) || id != 0 {
				t.Fatalf("Parse(%q) = %d, %v; want 0 and %v saying %q", tt.in, id, err, tt.is, tt.want)
			}
		})
	}
}

// TestBase32Aliases: lower case reads as upper, and I, L and O as the
// digits they look like, as Crockford's decoding has it.
func TestBase32Aliases(t *testing.T) {
	const id = 0x1234_5678_9abc_def0
	canonical := uidgen.Base32.Format(id)
	for _, s := range []string{canonical, strings.ToLower(canonical)} {
		if got, err := uidgen.Base32.Parse(s); err != nil || got != id {
			t.Errorf("Parse(%q) = %d, %v; want %d", s, got, err, id)
		}
	}
	for _, s := range []string{"0000000000001", "000000000000I", "000000000000i", "000000000000L", "000000000000l"} {
		if got, err := uidgen.Base32.Parse(s); err != nil || got != 1 {
			t.Errorf("Parse(%q) = %d, %v; want 1", s, got, err)
		}
	}
	for _, s := range []string{"O000000000000", "o000000000000"} {
		if got, err := uidgen.Base32.Parse(s); err != nil || got != 0 {
			t.Errorf("Parse(%q) = %d, %v; want 0", s, got, err)
		}
	}
}

// TestEncodingNegative: a negative int64 is written, as the docs say, and
// never read back as an ID.
func TestEncodingNegative(t *testing.T) {
	want := map[uidgen.Encoding]string{
		uidgen.Decimal: "-1", uidgen.Base32: "FZZZZZZZZZZZZ", uidgen.Base62: "LygHa16AHYF", uidgen.Base58: "JPwcyDCgEup",
	}
	for _, e := range encodings {
		for _, id := range []int64{-1, math.MinInt64} {
			s := e.enc.Format(id)
			if id == -1 && s != want[e.enc] {
				t.Errorf("%v.Format(-1) = %q, want %q", e.enc, s, want[e.enc])
			}
			if got, err := e.enc.Parse(s); !errors.Is(err, uidgen.ErrIDRange) {
				t.Errorf("%v.Parse(Format(%d) = %q) = %d, %v; want ErrIDRange", e.enc, id, s, got, err)
			}
		}
	}
}

// TestEncodingZeroValue: the zero Encoding is Decimal, and the names are
// the command's -encoding names.
func TestEncodingZeroValue(t *testing.T) {
	var e uidgen.Encoding
	if e != uidgen.Decimal || e.Format(42) != "42" {
		t.Errorf("zero Encoding is %v, want decimal", e)
	}
	var names []string
	for _, e := range encodings {
		names = append(names, e.enc.String())
	}
	if got := strings.Join(names, " "); got != "decimal base32 base62 base58" {
		t.Errorf("names %q", got)
	}
}

// FuzzEncodingParse: no text panics Parse, and what it reads, Format
// writes back to text that reads the same ID.
func FuzzEncodingParse(f *testing.F) {
	for _, s := range []string{"", "0", "7ZZZZZZZZZZZZ", "AzL8n0Y58m7", "npL6MjP8Qfc", "-5", "\xff", "iLoO"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range encodings {
			id, err := e.enc.Parse(s)
			if err != nil {
				continue
			}
			if id < 0 {
				t.Fatalf("%v.Parse(%q) = %d", e.enc, s, id)
			}
			if back, err := e.enc.Parse(e.enc.Format(id)); err != nil || back != id {
				t.Fatalf("%v: %q reads %d, whose Format reads %d, %v", e.enc, s, id, back, err)
			}
		}
	})
}

// BenchmarkEncodingFormat: each encoding's Format, against
// strconv.FormatInt's, which Decimal is.
func BenchmarkEncodingFormat(b *testing.B) {
	const id = 512360392635531266
	for _, e := range encodings {
		b.Run(e.enc.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = e.enc.Format(id)
			}
		})
	}
}

func BenchmarkEncodingParse(b *testing.B) {
	const id = 512360392635531266
	for _, e := range encodings {
		s := e.enc.Format(id)
		b.Run(e.enc.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.enc.Parse(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var sink string
