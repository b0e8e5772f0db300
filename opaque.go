package uidgen

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Opaque hides a layout's IDs behind a keyed permutation, for IDs shown
// outside a service: Hide maps an ID to another number of the same space,
// which tells nothing of its time, worker or sequence to whoever lacks
// the key, and Reveal maps it back. The space is every number below
// 2^width, where width is the layout's bits below the sign bit (63 for
// 64-bit layouts, 53 for a JavaScript-safe one), so an opaque ID
// is an int64 of 0 or more as an ID is, and every Encoding and UID
// carries it.
//
// The permutation is FF1 (NIST SP 800-38G Rev. 1) over radix 2 with
// AES and no tweak: format-preserving encryption, a bijection for each
// key, so two IDs never hide as one. Opaque IDs do not sort as the IDs
// do, are as unique as the IDs and no more secret than the key: anyone
// holding it reveals every ID. See docs/opaque.md.
//
// An Opaque holds keys numbered from 1, in the order given to NewOpaque;
// the last hides. Its text form (Format, Parse) names the key number, so
// that a key can be rotated without breaking the texts shown under the
// old one. An Opaque is safe for concurrent use.
type Opaque struct {
	width int // IDs are below 2^width
	keys  []ff1
}

// NewOpaque returns the Opaque of layout's IDs under keys, numbered from
// 1; Hide and Format use the last. Each key is 16, 24 or 32 bytes: AES-128,
// AES-192 or AES-256. A missing or bad key is an error wrapping ErrConfig.
func NewOpaque(layout Layout, keys ...[]byte) (*Opaque, error) {
	if layout.bits == nil {
		return nil, fmt.Errorf("%w: opaque IDs of the zero Layout: use NewLayout, NamedLayout or DefaultLayout", ErrConfig)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: opaque IDs need a key of 16, 24 or 32 bytes, got none", ErrConfig)
	}
	s := layout.bits.Spec()
	width := min(s.TimeBits+s.WorkerBits+s.SeqBits+s.GeneBits, 63)
	if width < minOpaqueBits {
		return nil, fmt.Errorf("%w: opaque IDs of the %d-bit layout %v: FF1 needs a space of at least a million, %d bits",
			ErrConfig, width, layout, minOpaqueBits)
	}
	o := &Opaque{width: width, keys: make([]ff1, len(keys))}
	for i, key := range keys {
		if err := o.keys[i].init(key, width); err != nil {
			return nil, fmt.Errorf("%w: opaque key %d: %w", ErrConfig, i+1, err)
		}
	}
	return o, nil
}

// Keys returns the number of keys, which is the number of the key Hide
// uses.
func (o *Opaque) Keys() int { return len(o.keys) }

// Hide returns the opaque ID of id under the last key. An id outside the
// space, negative or from 2^width on, is an error wrapping ErrIDRange.
func (o *Opaque) Hide(id int64) (int64, error) {
	if err := o.check("ID", id); err != nil {
		return 0, err
	}
	return int64(o.keys[len(o.keys)-1].encrypt(uint64(id))), nil
}

// Reveal returns the ID whose opaque ID under the last key is opaque. An
// int64 carries no key number: an opaque ID hidden under an older key is
// revealed by an Opaque of that key, or from its text by Parse. An opaque
// ID outside the space is an error wrapping ErrIDRange.
func (o *Opaque) Reveal(opaque int64) (int64, error) {
	if err := o.check("opaque ID", opaque); err != nil {
		return 0, err
	}
	return int64(o.keys[len(o.keys)-1].decrypt(uint64(opaque))), nil
}

// Format returns the text form of id's opaque ID: the last key's number, an
// underscore and the opaque ID in enc, as "1_5JRvNzBWeqk" in Base62. It
// fails as Hide does.
func (o *Opaque) Format(id int64, enc Encoding) (string, error) {
	h, err := o.Hide(id)
	if err != nil {
		return "", err
	}
	return strconv.Itoa(len(o.keys)) + "_" + enc.Format(h), nil
}

// Parse returns the ID whose text form, under the key it names, is text.
// Text that is not a key number of this Opaque, an underscore and an ID
// in enc is an error wrapping ErrIDSyntax; an opaque ID outside the space
// one wrapping ErrIDRange.
func (o *Opaque) Parse(text string, enc Encoding) (int64, error) {
	num, rest, ok := strings.Cut(text, "_")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || num[0] == '+' || num[0] == '0' {
		return 0, fmt.Errorf("%w: opaque ID %q: want a key number, an underscore and an ID in %v, as %q",
			ErrIDSyntax, text, enc, strconv.Itoa(len(o.keys))+"_"+enc.Format(1))
	}
	if n > len(o.keys) {
		return 0, fmt.Errorf("%w: opaque ID %q names key %d, and there %s", ErrIDSyntax, text, n, o.keysText())
	}
	v, err := enc.Parse(rest)
	if err == nil {
		err = o.check("its number", v)
	}
	if err != nil {
		return 0, fmt.Errorf("opaque ID %q: %w", text, err)
	}
	return int64(o.keys[n-1].decrypt(uint64(v))), nil
}

// keysText says which key numbers o holds.
func (o *Opaque) keysText() string {
	if len(o.keys) == 1 {
		return "is only key 1"
	}
	return fmt.Sprintf("are keys 1 to %d", len(o.keys))
}

// check returns an error wrapping ErrIDRange where v is outside the space.
func (o *Opaque) check(what string, v int64) error {
	if v < 0 || o.width < 63 && v>>o.width != 0 {
		return fmt.Errorf("%w: %s %d is outside the layout's %d-bit space, 0 to %d", ErrIDRange, what, v, o.width, int64(1)<<o.width-1)
	}
	return nil
}

// minOpaqueBits is the narrowest space NewOpaque takes: SP 800-38G Rev. 1
// asks FF1 for a domain of at least a million, against attacks that
// recover messages of smaller ones.
const minOpaqueBits = 20

// ff1 is FF1 (NIST SP 800-38G Rev. 1, Algorithm 7 and 8) over radix 2
// for one key and one width n, with an empty tweak, on numbers below 2^n
// whose numeral strings are their n bits, most significant first.
//
// With radix 2 and n at most 64, the algorithm's strings are integers:
// NUM₂ of the high u bits A and low v bits B (u = ⌊n/2⌋, v = n-u) is A
// and B themselves, b = ⌈v/8⌉ is at most 4 bytes, so d = 4⌈b/4⌉+4 is 8 and
// y is the first 8 bytes of R; and Q, with t = 0, is one block, so that
// PRF(P‖Q) = CIPH(CIPH(P) ⊕ Q): CIPH(P) is fixed by the key and n, and
// each round costs one AES block.
type ff1 struct {
	block   cipher.Block
	u, v, b int
	p0, p1  uint64 // CIPH(P), as two big-endian halves
}

// blocks holds the rounds' scratch blocks: a block passed to a
// cipher.Block's Encrypt escapes, and a pool keeps Hide and Reveal from
// allocating one each call.
var blocks = sync.Pool{New: func() any { return new([aes.BlockSize]byte) }}

func (f *ff1) init(key []byte, n int) error {
	switch len(key) {
	case 16, 24, 32:
	default:
		return fmt.Errorf("%d bytes, want 16, 24 or 32 (AES-128, AES-192, AES-256)", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return err
	}
	f.block, f.u = block, n/2
	f.v = n - f.u
	f.b = (f.v + 7) / 8
	// P = [1]¹ ‖ [2]¹ ‖ [1]¹ ‖ [radix]³ ‖ [10]¹ ‖ [u mod 256]¹ ‖ [n]⁴ ‖ [t]⁴.
	p := [aes.BlockSize]byte{1, 2, 1, 0, 0, 2, 10, byte(f.u)}
	binary.BigEndian.PutUint32(p[8:], uint32(n))
	f.block.Encrypt(p[:], p[:])
	f.p0, f.p1 = binary.BigEndian.Uint64(p[:8]), binary.BigEndian.Uint64(p[8:])
	return nil
}

// y returns the round function of round i on the half h: NUM of the first
// d = 8 bytes of PRF(P ‖ Q), Q = [0]^(15-b) ‖ [i]¹ ‖ [h]^b. With b at most
// 4, Q's bytes other than zeros lie in its second half, the number
// i·2^(8b) + h.
func (f *ff1) y(q *[aes.BlockSize]byte, i int, h uint64) uint64 {
	binary.BigEndian.PutUint64(q[:8], f.p0)
	binary.BigEndian.PutUint64(q[8:], f.p1^(uint64(i)<<(8*f.b)|h))
	f.block.Encrypt(q[:], q[:])
	return binary.BigEndian.Uint64(q[:8])
}

// encrypt is Algorithm 7, FF1.Encrypt.
func (f *ff1) encrypt(x uint64) uint64 {
	q := blocks.Get().(*[aes.BlockSize]byte)
	defer blocks.Put(q)
	a, b := x>>f.v, x&(1<<f.v-1)
	for i := range 10 {
		m := f.u
		if i%2 == 1 {
			m = f.v
		}
		a, b = b, (a+f.y(q, i, b))&(1<<m-1)
	}
	return a<<f.v | b
}

// decrypt is Algorithm 8, FF1.Decrypt.
func (f *ff1) decrypt(x uint64) uint64 {
	q := blocks.Get().(*[aes.BlockSize]byte)
	defer blocks.Put(q)
	a, b := x>>f.v, x&(1<<f.v-1)
	for i := 9; i >= 0; i-- {
		m := f.u
		if i%2 == 1 {
			m = f.v
		}
		a, b = (b-f.y(q, i, a))&(1<<m-1), a
	}
	return a<<f.v | b
}
