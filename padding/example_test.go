package padding_test

import (
	"context"
	"fmt"

	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/padding"
	"github.com/seed4d941b13/uidgen/ringbuffer"
	"github.com/seed4d941b13/uidgen/worker"
)

func Example() {
	scheme, err := defaultgen.Config{Assigner: worker.Static(1)}.Scheme(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	// Two seconds of 8,192 IDs.
	ring, err := ringbuffer.New(ringbuffer.Config{Size: 2 << scheme.Allocator().SeqBits()})
	if err != nil {
		fmt.Println(err)
		return
	}
	exec, err := padding.New(padding.Config{Ring: ring, Scheme: scheme})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exec.Close()

	fmt.Println("filled:", ring.Stats().Available, "IDs in", exec.Stats().Runs, "run")
	first, _ := ring.Take()
	fmt.Println("sequence of the first:", scheme.Parse(first).Sequence)
	// Output:
	// filled: 16384 IDs in 1 run
	// sequence of the first: 0
}
