package serial

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/seed4d941b13/uidgen"
)

// kind is what a field of a pattern stands for. The time kinds are in
// order from the coarsest to the finest.
type kind int

const (
	literal kind = iota
	year4        // {yyyy}
	year2        // {yy}
	month        // {MM}
	day          // {dd}
	hour         // {HH}
	minute       // {mm}
	second       // {ss}
	milli        // {SSS}
	worker       // {worker:N}
	seq          // {seq:N}
)

// timeFields are the time fields by name, with their widths.
var timeFields = map[string]struct {
	k     kind
	width int
}{
	"yyyy": {year4, 4}, "yy": {year2, 2}, "MM": {month, 2}, "dd": {day, 2},
	"HH": {hour, 2}, "mm": {minute, 2}, "ss": {second, 2}, "SSS": {milli, 3},
}

// maxDigits is the widest {worker:N} or {seq:N}: 18 digits hold every
// number below 10^18, and a 19th digit would not fit every int64's 10^N.
const maxDigits = 18

// field is one part of a parsed pattern: literal text, or a number of
// width digits at offset pos in every string the pattern makes.
type field struct {
	k     kind
	text  string // literal's text, braces unescaped
	name  string // the field as the pattern writes it, as "{seq:6}"
	pos   int
	width int
}

// pattern is a parsed pattern: its source, its parts, and its width, the
// same for every string it makes.
type pattern struct {
	src    string
	fields []field
	width  int
	// has maps each kind but literal to its field's index in fields, -1
	// where the pattern has none.
	has [seq + 1]int
}

// parsePattern parses src: literal text, {{ and }}, and the fields.
// Each field may appear once, and {yyyy} and {yy} not both.
func parsePattern(src string) (*pattern, error) {
	p := &pattern{src: src}
	for i := range p.has {
		p.has[i] = -1
	}
	var lit strings.Builder
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '{' && strings.HasPrefix(src[i:], "{{"), c == '}' && strings.HasPrefix(src[i:], "}}"):
			lit.WriteByte(c)
			i++
		case c == '}':
			return nil, p.errorf("lone } at byte %d: write }} for a brace", i)
		case c == '{':
			end := strings.IndexByte(src[i:], '}')
			if end < 0 {
				return nil, p.errorf("{ at byte %d is not closed: write {{ for a brace", i)
			}
			if err := p.addField(src[i:i+end+1], &lit); err != nil {
				return nil, err
			}
			i += end
		default:
			lit.WriteByte(c)
		}
	}
	p.addLiteral(&lit)
	return p, nil
}

// addLiteral appends the literal text in lit, if any, and empties lit.
func (p *pattern) addLiteral(lit *strings.Builder) {
	if lit.Len() > 0 {
		p.fields = append(p.fields, field{k: literal, text: lit.String(), pos: p.width, width: lit.Len()})
		p.width += lit.Len()
		lit.Reset()
	}
}

// addField parses the field name, braces included, and appends it after
// lit, the literal text before it. It refuses a field the pattern has
// already, counting {yyyy} and {yy} as one.
func (p *pattern) addField(name string, lit *strings.Builder) error {
	f, err := p.parseField(name)
	if err != nil {
		return err
	}
	if p.has[f.k] >= 0 || (f.k == year4 && p.has[year2] >= 0) || (f.k == year2 && p.has[year4] >= 0) {
		return p.errorf("%s: the pattern has a field for it already", f.name)
	}
	p.addLiteral(lit)
	f.pos = p.width
	p.width += f.width
	p.has[f.k] = len(p.fields)
	p.fields = append(p.fields, f)
	return nil
}

// parseField parses one field, braces included.
func (p *pattern) parseField(name string) (field, error) {
	inner := name[1 : len(name)-1]
	if t, ok := timeFields[inner]; ok {
		return field{k: t.k, name: name, width: t.width}, nil
	}
	label, digits, ok := strings.Cut(inner, ":")
	var k kind
	switch label {
	case "worker":
		k = worker
	case "seq":
		k = seq
	default:
		return field{}, p.errorf("%s is not a field: want {yyyy} {yy} {MM} {dd} {HH} {mm} {ss} {SSS} {worker:N} {seq:N}, and {{ or }} for a brace", name)
	}
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 1 || n > maxDigits {
		return field{}, p.errorf("%s: want {%s:N}, N digits from 1 to %d", name, label, maxDigits)
	}
	return field{k: k, name: name, width: n}, nil
}

// field returns the pattern's field of kind k; ok is false where it has none.
func (p *pattern) field(k kind) (f field, ok bool) {
	if i := p.has[k]; i >= 0 {
		return p.fields[i], true
	}
	return field{}, false
}

// errorf returns an error wrapping uidgen.ErrConfig that names the pattern.
func (p *pattern) errorf(format string, args ...any) error {
	return fmt.Errorf("serial: %w: pattern %q: %s", uidgen.ErrConfig, p.src, fmt.Sprintf(format, args...))
}

// template returns a string of the pattern's width with its literals in
// place and zeros in its fields.
func (p *pattern) template() []byte {
	b := make([]byte, 0, p.width)
	for _, f := range p.fields {
		if f.k == literal {
			b = append(b, f.text...)
		} else {
			b = append(b, strings.Repeat("0", f.width)...)
		}
	}
	return b
}

// putDigits writes v's last len(b) decimal digits into b, zero-padded,
// two at a time. A negative v, which only an int64 that is no ID of the
// layout gives, is written as the uint64 of its bits.
func putDigits(b []byte, v int64) {
	u := uint64(v)
	i := len(b)
	for ; i >= 2; i -= 2 {
		r := u % 100 * 2
		b[i-2], b[i-1] = pairs[r], pairs[r+1]
		u /= 100
	}
	if i == 1 {
		b[0] = byte('0' + u%10)
	}
}

// pairs is "00" to "99".
const pairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// pow10 is 10^n for n up to maxDigits.
func pow10(n int) int64 {
	v := int64(1)
	for range n {
		v *= 10
	}
	return v
}
