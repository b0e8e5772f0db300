package defaultgen_test

import (
	"context"
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/fakeclock"
)

func Example() {
	g, err := defaultgen.New(context.Background(), defaultgen.Config{
		Assigner: uidgen.Static(42),
		// Only so the output is the same every run; leave Clock nil.
		Clock: fakeclock.New(time.Date(2026, 11, 22, 8, 30, 0, 0, time.UTC)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		uid, err := g.NextID()
		if err != nil {
			fmt.Println(err)
			return
		}
		id := g.Parse(uid)
		fmt.Println(uid, id.Time.UTC().Format(time.DateTime), id.WorkerID, id.Sequence)
	}
	// Output:
	// 512360392635531264 2026-11-22 08:30:00 42 0
	// 512360392635531265 2026-11-22 08:30:00 42 1
	// 512360392635531266 2026-11-22 08:30:00 42 2
}
