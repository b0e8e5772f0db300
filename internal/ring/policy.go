package ring

import (
	"fmt"
	"runtime"
	"time"
)

// Under Wait, a take yields the processor while the producer has stalled
// less than spinFor, and sleeps sleepFor at a time after that, so that its
// thread leaves the CPU to the producer's rather than spin against it.
const (
	spinFor  = 50 * time.Microsecond
	sleepFor = 100 * time.Microsecond
)

// TakePolicy is ringbuffer.TakePolicy.
type TakePolicy func(stalled time.Duration) error

// Fail is ringbuffer.Fail.
func Fail(time.Duration) error {
	return fmt.Errorf("%w: not waiting for the producer", ErrEmpty)
}

// Wait is ringbuffer.Wait.
func Wait(limit time.Duration) TakePolicy {
	return func(stalled time.Duration) error {
		if stalled >= limit {
			return fmt.Errorf("%w: the producer put nothing for %v, the limit is %v", ErrEmpty, stalled, limit)
		}
		if stalled < spinFor {
			runtime.Gosched()
		} else {
			time.Sleep(sleepFor)
		}
		return nil
	}
}
