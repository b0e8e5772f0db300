package defaultgen_test

import (
	"context"
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/internal/clocktest"
)

func Example() {
	g, err := defaultgen.New(context.Background(), defaultgen.Config{
		Assigner: uidgen.Static(42),
		// Only so the output is the same every run; leave Clock nil.
		Clock: clocktest.New(time.Date(2026, 11, 22, 8, 30, 0, 0, time.UTC)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var last int64
	for range 3 {
		uid, err := g.NextID()
		if err != nil {
			fmt.Println(err)
			return
		}
		id := g.Layout().Parse(uid)
		fmt.Println(id.Time.UTC().Format("2006-01-02 15:04"), "worker", id.WorkerID, "increasing:", uid > last)
		last = uid
	}
	// Output:
	// 2026-11-22 08:30 worker 42 increasing: true
	// 2026-11-22 08:30 worker 42 increasing: true
	// 2026-11-22 08:30 worker 42 increasing: true
}
