package padding_test

import (
	"fmt"

	"github.com/seed4d941b13/uidgen/padding"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// tickets is a Source of numbered tickets, ten at a time.
type tickets struct{ next int64 }

func (s *tickets) Next(room int) (ringbuffer.Run, error) {
	if room < 10 {
		return ringbuffer.Run{}, nil // only whole runs of ten: wait for room
	}
	run := ringbuffer.Run{First: s.next + 1, Step: 1, N: 10}
	s.next += 10
	return run, nil
}

func Example() {
	ring, err := ringbuffer.New(ringbuffer.Config{Size: 64})
	if err != nil {
		fmt.Println(err)
		return
	}
	exec, err := padding.New(padding.Config{Ring: ring, Source: &tickets{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exec.Close()

	// A ring of 64 holds 4 runs: 40 tickets.
	fmt.Println("filled:", ring.Stats().Available, "tickets in", exec.Fills(), "fill")
	first, _ := ring.Take()
	fmt.Println("first ticket:", first)
	// Output:
	// filled: 40 tickets in 1 fill
	// first ticket: 1
}
