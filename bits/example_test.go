package bits_test

import (
	"fmt"

	"github.com/seed4d941b13/uidgen/bits"
)

func Example() {
	a, err := bits.New(bits.Spec{TimeBits: 30, WorkerBits: 20, SeqBits: 13})
	if err != nil {
		panic(err)
	}
	uid := a.Allocate(86400, 42, 7) // one day after the epoch, worker 42, 8th ID of that second
	delta, worker, seq := a.Parse(uid)
	fmt.Println(a)
	fmt.Println(uid, delta, worker, seq)
	fmt.Println(a.MaxDelta(), a.MaxWorkerID(), a.MaxSequence())
	// Output:
	// 1+30+20+13 bits (sign+time+worker+sequence)
	// 742170349092871 86400 42 7
	// 1073741823 1048575 8191
}

func ExampleNew_error() {
	_, err := bits.New(bits.Spec{TimeBits: 30, WorkerBits: 22, SeqBits: 13})
	fmt.Println(err)
	// Output:
	// invalid bit layout: 1 sign + time 30 + worker 22 + sequence 13 bits = 66: want at most 64
}

// sonyflake's layout puts the sequence above the machine ID, so the IDs of
// one tick and one machine are 2^16 apart.
func ExampleSpec() {
	a, err := bits.New(bits.Spec{TimeBits: 39, WorkerBits: 16, SeqBits: 8, SeqAboveWorker: true})
	if err != nil {
		panic(err)
	}
	first, second := a.Allocate(100, 0x1234, 0), a.Allocate(100, 0x1234, 1)
	fmt.Println(a)
	fmt.Println(second - first)
	// Output:
	// 1+39+8+16 bits (sign+time+sequence+worker)
	// 65536
}
