package uidgen_test

import (
	"encoding/json"
	"fmt"

	"github.com/seed4d941b13/uidgen"
)

// Each encoding writes an ID as text that Parse reads back: Base32 and
// Base62 at a fixed width that sorts as the IDs do, Base58 as
// bwmarrin/snowflake's Base58 writes it.
func ExampleEncoding() {
	const id = 512360392635531266 // what a generator's NextID returns
	for _, e := range []uidgen.Encoding{uidgen.Decimal, uidgen.Base32, uidgen.Base62, uidgen.Base58} {
		s := e.Format(id)
		back, err := e.Parse(s)
		fmt.Printf("%-7s %-18s %d %v\n", e, s, back, err)
	}
	_, err := uidgen.Base32.Parse("0E7252000AU02")
	fmt.Println(err)
	// Output:
	// decimal 512360392635531266 512360392635531266 <nil>
	// base32  0E7252000AG02      512360392635531266 <nil>
	// base62  0bqcC29h0Ow        512360392635531266 <nil>
	// base58  2bYQWGRsUa9        512360392635531266 <nil>
	// bad ID string: "0E7252000AU02" is not a 64-bit integer in base32: character 11, 'U', is not one of 0-9 and A-Z but U, in either case
}

// A UID carries a generator's int64 through JSON as a string, which a
// JavaScript client reads without rounding it, and reads a number too.
func ExampleUID() {
	type order struct {
		ID   uidgen.UID `json:"id"`
		Item string     `json:"item"`
	}
	b, _ := json.Marshal(order{ID: uidgen.UID(512360392635531266), Item: "book"})
	fmt.Println(string(b))

	var o order
	err := json.Unmarshal([]byte(`{"id":512360392635531266,"item":"pen"}`), &o)
	fmt.Println(int64(o.ID), o.Item, err)
	// Output:
	// {"id":"512360392635531266","item":"book"}
	// 512360392635531266 pen <nil>
}
