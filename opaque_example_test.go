package uidgen_test

import (
	"encoding/hex"
	"fmt"

	"github.com/seed4d941b13/uidgen"
)

// An order number shown on a receipt hides the ID behind it: Format writes
// the opaque text under the newest key, Parse reads it back under the key
// it names, here after a rotation added a second key.
func ExampleOpaque() {
	// In a service the keys come from a secret store or a key file
	// (`openssl rand -hex 32`), never from the code.
	key1, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	key2, _ := hex.DecodeString("1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100")
	layout := uidgen.DefaultLayout()
	id := layout.Bits().Allocate(1_000_000, 7, 0)

	before, _ := uidgen.NewOpaque(layout, key1)
	shown, _ := before.Format(id, uidgen.Base62)
	next, _ := before.Format(id+1, uidgen.Base62)
	fmt.Println(id, "is shown as", shown, "and the next ID as", next)

	after, _ := uidgen.NewOpaque(layout, key1, key2)
	back, _ := after.Parse(shown, uidgen.Base62)
	now, _ := after.Format(id, uidgen.Base62)
	fmt.Println(shown, "still reads as", back, "and is now shown as", now)
	// Output:
	// 8589934592057344 is shown as 1_ABeVgaE2oIv and the next ID as 1_4nzylLjEfe8
	// 1_ABeVgaE2oIv still reads as 8589934592057344 and is now shown as 2_AoGObiIU7OM
}
