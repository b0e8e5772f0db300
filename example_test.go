package uidgen_test

import (
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// A Layout reads IDs without a generator, clock or database: here one made
// by a Java service with Baidu's defaults, whose time bits ran out in 2024.
func ExampleNewLayout() {
	l, err := uidgen.NewLayout(28, 22, 13, time.Date(2016, 5, 20, 0, 0, 0, 0, time.UTC))
	if err != nil {
		fmt.Println(err)
		return
	}
	id := l.Parse(9219312100282790113)
	fmt.Println(id.Time.UTC(), id.WorkerID, id.Sequence)
	fmt.Println("time bits ran out at", l.RunsOut().UTC())
	// Output:
	// 2024-11-19 12:34:56 +0000 UTC 1234567 4321
	// time bits ran out at 2024-11-20 21:24:16 +0000 UTC
}
