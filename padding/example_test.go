package padding_test

import (
	"fmt"

	"github.com/seed4d941b13/uidgen/padding"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// tickets is a Source of numbered tickets, ten at a time.
type tickets struct {
	batch [10]int64
	next  int64
}

func (s *tickets) Next(room int) ([]int64, error) {
	if room < len(s.batch) {
		return nil, nil // only whole batches: wait for room
	}
	for i := range s.batch {
		s.next++
		s.batch[i] = s.next
	}
	return s.batch[:], nil
}

func Example() {
	ring, err := ringbuffer.New(ringbuffer.Config{Size: 32})
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

	fmt.Println("filled:", ring.Stats().Available, "tickets in", exec.Runs(), "run")
	first, _ := ring.Take()
	fmt.Println("first ticket:", first)
	// Output:
	// filled: 30 tickets in 1 run
	// first ticket: 1
}
