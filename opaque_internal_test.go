package uidgen

import (
	"crypto/aes"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// refFF1 is FF1.Encrypt of SP 800-38G Rev. 1, Algorithm 7, written from
// the standard step by step over any radix and tweak, with math/big: the
// known-answer samples check it, and it checks ff1, which takes shortcuts
// that hold only for radix 2.
func refFF1(t *testing.T, key []byte, tweak []byte, radix int, x []int) []int {
	t.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	r := big.NewInt(int64(radix))
	num := func(xs []int) *big.Int {
		n := new(big.Int)
		for _, d := range xs {
			n.Mul(n, r).Add(n, big.NewInt(int64(d)))
		}
		return n
	}
	str := func(m int, n *big.Int) []int {
		out := make([]int, m)
		n = new(big.Int).Set(n)
		d := new(big.Int)
		for i := m - 1; i >= 0; i-- {
			n.DivMod(n, r, d)
			out[i] = int(d.Int64())
		}
		return out
	}
	prf := func(in []byte) []byte {
		y := make([]byte, aes.BlockSize)
		for i := 0; i < len(in); i += aes.BlockSize {
			for j := range y {
				y[j] ^= in[i+j]
			}
			block.Encrypt(y, y)
		}
		return y
	}
	n, tl := len(x), len(tweak)
	u := n / 2
	v := n - u
	a, b := x[:u], x[u:]
	// b = ⌈⌈v·log2(radix)⌉/8⌉: the bytes of radix^v - 1.
	bb := (new(big.Int).Sub(new(big.Int).Exp(r, big.NewInt(int64(v)), nil), big.NewInt(1)).BitLen() + 7) / 8
	d := 4*((bb+3)/4) + 4
	p := []byte{1, 2, 1, byte(radix >> 16), byte(radix >> 8), byte(radix), 10, byte(u), 0, 0, 0, 0, 0, 0, 0, 0}
	p[8], p[9], p[10], p[11] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	p[12], p[13], p[14], p[15] = byte(tl>>24), byte(tl>>16), byte(tl>>8), byte(tl)
	for i := range 10 {
		q := append([]byte{}, tweak...)
		q = append(q, make([]byte, ((-tl-bb-1)%16+16)%16)...)
		q = append(q, byte(i))
		nb := num(b).Bytes()
		q = append(q, make([]byte, bb-len(nb))...)
		q = append(q, nb...)
		rr := prf(append(append([]byte{}, p...), q...))
		s := append([]byte{}, rr...)
		for j := 1; len(s) < d; j++ {
			blk := append([]byte{}, rr...)
			blk[15] ^= byte(j) // R ⊕ [j]^16
			blk[14] ^= byte(j >> 8)
			block.Encrypt(blk, blk)
			s = append(s, blk...)
		}
		y := new(big.Int).SetBytes(s[:d])
		m := u
		if i%2 == 1 {
			m = v
		}
		c := new(big.Int).Add(num(a), y)
		c.Mod(c, new(big.Int).Exp(r, big.NewInt(int64(m)), nil))
		a, b = b, str(m, c)
	}
	return append(append([]int{}, a...), b...)
}

// TestFF1ReferenceSamples: the reference gives NIST's FF1 samples 1 to 9
// (csrc.nist.gov, FF1samples.pdf: AES-128, -192, -256; radix 10 and 36;
// with and without a tweak) and Zcash's radix-2 vectors (88 bits, as
// str4d/fpe's tests carry them), so it is FF1.
func TestFF1ReferenceSamples(t *testing.T) {
	const (
		k128 = "2B7E151628AED2A6ABF7158809CF4F3C"
		k192 = k128 + "EF4359D8D580AA4F"
		k256 = k192 + "7F036D6F04FC6A94"
		t10  = "39383736353433323130"
		t11  = "3737373770717273373737"
	)
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	for _, s := range []struct {
		key, tweak string
		radix      int
		pt, ct     string
	}{
		{k128, "", 10, "0123456789", "2433477484"},
		{k128, t10, 10, "0123456789", "6124200773"},
		{k128, t11, 36, "0123456789abcdefghi", "a9tv40mll9kdu509eum"},
		{k192, "", 10, "0123456789", "2830668132"},
		{k192, t10, 10, "0123456789", "2496655549"},
		{k192, t11, 36, "0123456789abcdefghi", "xbj3kv35jrawxv32ysr"},
		{k256, "", 10, "0123456789", "6657667009"},
		{k256, t10, 10, "0123456789", "1001623463"},
		{k256, t11, 36, "0123456789abcdefghi", "xs8a0azh2avyalyzuwd"},
		{k256, "", 2, strings.Repeat("0", 88), bitsOf("90acee3f83cde7ae5622f3")},
		{k256, "", 2, bitsOf("90acee3f83cde7ae5622f3"), bitsOf("5b8bf120f39bab8527ea1b")},
		{k256, "", 2, bitsOf("aaaaaaaaaaaaaaaaaaaaaa"), bitsOf("f082b7ee8f29c07691ce64")},
	} {
		key, _ := hex.DecodeString(s.key)
		tweak, _ := hex.DecodeString(s.tweak)
		var x []int
		for _, c := range s.pt {
			x = append(x, strings.IndexRune(alphabet, c))
		}
		var got strings.Builder
		for _, d := range refFF1(t, key, tweak, s.radix, x) {
			got.WriteByte(alphabet[d])
		}
		if got.String() != s.ct {
			t.Errorf("FF1 key %s… tweak %q radix %d of %s = %s, want %s", s.key[:8], s.tweak, s.radix, s.pt, got.String(), s.ct)
		}
	}
}

// bitsOf returns the radix-2 numeral string that Zcash's vectors give as
// the bytes hex spells: each byte's bits least significant first, as
// Zcash's LEBS2OSP packs them.
func bitsOf(h string) string {
	raw, _ := hex.DecodeString(h)
	var s strings.Builder
	for _, c := range raw {
		for i := range 8 {
			s.WriteByte('0' + c>>i&1)
		}
	}
	return s.String()
}

// TestFF1MatchesReference: ff1's shortcuts give what the reference gives,
// on every width from 4 to 64 bits and every AES key size, and decrypt
// undoes encrypt.
func TestFF1MatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{16, 24, 32} {
		key := make([]byte, size)
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		for n := 4; n <= 64; n++ {
			var f ff1
			if err := f.init(key, n); err != nil {
				t.Fatal(err)
			}
			for range 20 {
				x := rng.Uint64() >> (64 - n)
				bits := make([]int, n)
				for i := range bits {
					bits[i] = int(x >> (n - 1 - i) & 1)
				}
				var want uint64
				for _, d := range refFF1(t, key, nil, 2, bits) {
					want = want<<1 | uint64(d)
				}
				if got := f.encrypt(x); got != want {
					t.Fatalf("AES-%d, %d bits: ff1 of %#x = %#x, the reference %#x", size*8, n, x, got, want)
				}
				if back := f.decrypt(want); back != x {
					t.Fatalf("AES-%d, %d bits: decrypt of %#x = %#x, want %#x", size*8, n, want, back, x)
				}
			}
		}
	}
}

// TestFF1Bijection: on 16 and 20 bits, every number maps to a distinct
// number of the same width, and back.
func TestFF1Bijection(t *testing.T) {
	key := make([]byte, 16)
	for _, n := range []int{16, 20} {
		var f ff1
		if err := f.init(key, n); err != nil {
			t.Fatal(err)
		}
		seen := make([]bool, 1<<n)
		for x := range uint64(1) << n {
			y := f.encrypt(x)
			if y>>n != 0 || seen[y] {
				t.Fatalf("%d bits: %#x maps to %#x, outside the width or taken by another", n, x, y)
			}
			seen[y] = true
			if back := f.decrypt(y); back != x {
				t.Fatalf("%d bits: decrypt(encrypt(%#x)) = %#x", n, x, back)
			}
		}
	}
}
