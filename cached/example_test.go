package cached_test

import (
	"context"
	"fmt"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
)

func Example() {
	g, err := cached.New(context.Background(), cached.Config{
		Assigner: uidgen.Static(7),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()

	id, err := g.NextID()
	if err != nil {
		fmt.Println(err)
		return
	}
	batch := make([]int64, 3)
	if _, err := g.NextIDs(batch); err != nil {
		fmt.Println(err)
		return
	}
	p := g.Parse(id)
	fmt.Println("worker", p.WorkerID, "sequence", p.Sequence)
	fmt.Println("then", batch[0]-id, batch[1]-id, batch[2]-id, "after it")

	s := g.Stats()
	fmt.Println("ring of", s.Size, "with", s.Available, "waiting")
	// Output:
	// worker 7 sequence 0
	// then 1 2 3 after it
	// ring of 65536 with 65532 waiting
}
