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
	fmt.Println("worker", g.Layout().Parse(id).WorkerID)
	fmt.Println("increasing:", id < batch[0] && batch[0] < batch[1] && batch[1] < batch[2])
	fmt.Println("ring of", g.Stats().Size)
	// Output:
	// worker 7
	// increasing: true
	// ring of 65536
}
