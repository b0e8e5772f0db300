package uidgen

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// Encoding writes an int64 ID as text and reads it back: one of Decimal
// (the zero Encoding), Base32, Base62 and Base58, which are the only
// values an Encoding takes. An Encoding is safe for concurrent use.
//
// Parse reads exactly the IDs 0 to 2^63-1, which covers every ID a
// generator makes, and Parse(Format(id)) == id for each of them. A
// negative int64 is never an ID: Format writes it (Decimal with a minus
// sign, the others as the unsigned number of its 64 bits, its two's
// complement), and Parse refuses what it writes with ErrIDRange, so a
// negative number never passes for an ID.
type Encoding struct {
	kind uint8 // an index into codecs; 0, Decimal, in the zero Encoding
}

// The encodings. Base32 and Base62 are fixed width, and their strings sort
// bytewise (as strings.Compare and SQL's binary collations sort) as the IDs
// do; Decimal and Base58 are as short as the ID allows, so "9" sorts after
// "10", and they do not.
var (
	// Decimal writes an ID as strconv.FormatInt does: 1 to 19 digits, no
	// leading zeros. Parse takes digits only (no sign), leading zeros
	// allowed, at most 19 of them.
	Decimal = Encoding{kindDecimal}

	// Base32 writes an ID as 13 characters of Crockford's base32 alphabet,
	// 0123456789ABCDEFGHJKMNPQRSTVWXYZ, upper case, zero-padded: 0 is
	// "0000000000000", 2^63-1 is "7ZZZZZZZZZZZZ". Parse takes exactly 13
	// characters in either case and, as Crockford's decoding does, reads I
	// and L as 1 and O as 0, so text a person copied out reads back; U and
	// Crockford's hyphens and check symbol are refused. Compare IDs, not
	// the text people type: Format(Parse(s)) is the one canonical string.
	Base32 = Encoding{kindBase32}

	// Base62 writes an ID as 11 characters of 0-9, A-Z and a-z, in that
	// order of value, zero-padded: 0 is "00000000000", 2^63-1 is
	// "AzL8n0Y58m7". Parse takes exactly 11 characters; case matters.
	Base62 = Encoding{kindBase62}

	// Base58 writes an ID as github.com/bwmarrin/snowflake's ID.Base58
	// does, bit for bit: 1 to 11 characters of its alphabet
	// 123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ, no
	// leading "1" (its zero) but for 0 itself, "1". Its ParseBase58 reads
	// what Base58 writes. Parse reads what bwmarrin writes, and refuses
	// what its ParseBase58 lets through: empty text, characters outside
	// the alphabet (bwmarrin reads l, I, O, _ and more as zero) and
	// numbers past 2^63-1 (which bwmarrin wraps round).
	Base58 = Encoding{kindBase58}
)

const (
	kindDecimal = iota
	kindBase32
	kindBase62
	kindBase58
)

// codec is what Parse and the error messages need of an encoding.
type codec struct {
	name     string
	alphabet string // the digits, in order of value
	fixed    bool   // every string is width characters, else 1 to width
	width    int
	digits   string // the alphabet as error messages describe it
	values   [256]byte
}

// noDigit marks a byte that is not a digit in codec.values.
const noDigit = 0xFF

const (
	base32Alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	base62Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	base58Alphabet = "123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ"
)

// codecs is indexed by Encoding.kind.
var codecs = [...]*codec{
	kindDecimal: newCodec("decimal", "0123456789", false, 19, "0-9", nil),
	kindBase32: newCodec("base32", base32Alphabet, true, 13, "0-9 and A-Z but U, in either case",
		// Crockford's lower case and the letters read as the digits they look like.
		func(values *[256]byte) {
			for i := range len(base32Alphabet) {
				if c := base32Alphabet[i]; c >= 'A' {
					values[c+'a'-'A'] = byte(i)
				}
			}
			values['I'], values['i'], values['L'], values['l'] = 1, 1, 1, 1
			values['O'], values['o'] = 0, 0
		}),
	kindBase62: newCodec("base62", base62Alphabet, true, 11, "0-9, A-Z and a-z", nil),
	kindBase58: newCodec("base58", base58Alphabet, false, 11, "1-9, a-z but l, and A-Z but I and O", nil),
}

func newCodec(name, alphabet string, fixed bool, width int, digits string, aliases func(*[256]byte)) *codec {
	c := &codec{name: name, alphabet: alphabet, fixed: fixed, width: width, digits: digits}
	for i := range c.values {
		c.values[i] = noDigit
	}
	for i := range len(alphabet) {
		c.values[alphabet[i]] = byte(i)
	}
	if aliases != nil {
		aliases(&c.values)
	}
	return c
}

// String returns the encoding's name: "decimal", "base32", "base62" or
// "base58".
func (e Encoding) String() string { return codecs[e.kind].name }

// Format returns id as text in the encoding. It does not fail: a negative
// id is written as the type's doc says, as text Parse refuses.
func (e Encoding) Format(id int64) string {
	switch e.kind {
	case kindBase32:
		return formatBase32(uint64(id))
	case kindBase62:
		return formatBase62(uint64(id))
	case kindBase58:
		return formatBase58(uint64(id))
	}
	return strconv.FormatInt(id, 10)
}

func formatBase32(u uint64) string {
	var b [13]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = base32Alphabet[u&31]
		u >>= 5
	}
	return string(b[:])
}

func formatBase62(u uint64) string {
	var b [11]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = base62Alphabet[u%62]
		u /= 62
	}
	return string(b[:])
}

// formatBase58 writes the fewest digits, most significant first, as
// bwmarrin's Base58 does.
func formatBase58(u uint64) string {
	var b [11]byte // 58^11 > 2^64
	i := len(b)
	for {
		i--
		b[i] = base58Alphabet[u%58]
		u /= 58
		if u == 0 {
			return string(b[i:])
		}
	}
}

// Parse returns the ID s names in the encoding, 0 to 2^63-1. It fails, and
// returns 0, with an error wrapping ErrIDSyntax for text that is empty,
// has a character outside the alphabet or the wrong length, and one
// wrapping ErrIDRange for a number past 2^63-1 or, in Decimal, a negative
// one. It does not panic on any input.
func (e Encoding) Parse(s string) (int64, error) {
	c := codecs[e.kind]
	if s == "" {
		return 0, c.syntax(s, "empty, want "+c.lengths())
	}
	if e.kind == kindDecimal && s[0] == '-' && c.allDigits(s[1:]) {
		return 0, fmt.Errorf("%w: %s in decimal is negative, and no ID is", ErrIDRange, quote(s))
	}
	for i := range len(s) {
		if c.values[s[i]] == noDigit {
			return 0, c.syntax(s, badCharacter(s, i)+" is not one of "+c.digits)
		}
	}
	if n := len(s); c.fixed && n != c.width || n > c.width {
		return 0, c.syntax(s, fmt.Sprintf("%d characters, want %s", n, c.lengths()))
	}
	base := uint64(len(c.alphabet))
	var v uint64
	for i := range len(s) {
		d := uint64(c.values[s[i]])
		if v > (math.MaxInt64-d)/base {
			return 0, fmt.Errorf("%w: %s in %s is past 2^63-1", ErrIDRange, quote(s), c.name)
		}
		v = v*base + d
	}
	return int64(v), nil
}

// allDigits reports whether s is a non-empty run of c's digits.
func (c *codec) allDigits(s string) bool {
	for i := range len(s) {
		if c.values[s[i]] == noDigit {
			return false
		}
	}
	return s != ""
}

// lengths says how many characters c's strings have.
func (c *codec) lengths() string {
	if c.fixed {
		return strconv.Itoa(c.width)
	}
	return "1 to " + strconv.Itoa(c.width)
}

func (c *codec) syntax(s, why string) error {
	return fmt.Errorf("%w: %s is not a 64-bit integer in %s: %s", ErrIDSyntax, quote(s), c.name, why)
}

// badCharacter names the character at byte i of s and its position, in
// characters from 1, as "character 4, '!',".
func badCharacter(s string, i int) string {
	r, size := utf8.DecodeRuneInString(s[i:])
	shown := strconv.QuoteRune(r)
	if r == utf8.RuneError && size <= 1 {
		shown = fmt.Sprintf("byte %#02x", s[i])
	}
	return fmt.Sprintf("character %d, %s,", utf8.RuneCountInString(s[:i])+1, shown)
}

// quote quotes s for an error message, cut to its first 32 bytes: text
// from a request may be of any length.
func quote(s string) string {
	const most = 32
	if len(s) > most {
		return strconv.Quote(s[:most]) + "..."
	}
	return strconv.Quote(s)
}
