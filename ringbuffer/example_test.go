package ringbuffer_test

import (
	"errors"
	"fmt"

	"github.com/seed4d941b13/uidgen/ringbuffer"
)

func Example() {
	r, err := ringbuffer.New(ringbuffer.Config{Size: 4, RejectedTake: ringbuffer.Fail})
	if err != nil {
		panic(err)
	}
	// The producer: one Put publishes the prefix of a run that fits.
	n, err := r.Put(ringbuffer.Run{First: 101, N: 5})
	fmt.Println("put", n, err)

	// Consumers: one at a time, or many with one atomic add.
	first, _ := r.Take()
	batch := make([]int64, 8)
	n, _ = r.TakeN(batch)
	fmt.Println("took", first, batch[:n])

	_, err = r.Take()
	fmt.Println("empty:", errors.Is(err, ringbuffer.ErrEmpty))
	fmt.Printf("%+v\n", r.Stats())
	// Output:
	// put 4 <nil>
	// took 101 [102 103 104]
	// empty: true
	// {Size:4 Available:0 Taken:4 TakesWaited:0 TakesFailed:1 Stale:0}
}
