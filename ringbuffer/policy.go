package ringbuffer

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

// TakePolicy is Baidu's RejectedTakeBufferHandler. Take calls it each time it
// finds the ring empty, after waking the producer, with stalled: how long,
// while this Take has waited, the producer has put nothing. Returning nil
// makes Take look again; returning an error makes Take fail with it. It must
// not return nil forever while the ring stays empty, or Take never returns.
type TakePolicy func(stalled time.Duration) error

// Fail is Baidu's default take policy: an empty ring is an error at once,
// wrapping ErrEmpty.
func Fail(time.Duration) error {
	return fmt.Errorf("%w: not waiting for the producer", ErrEmpty)
}

// Wait returns a take policy that yields the processor between looks at the
// ring, then sleeps between them once the producer has been still for 50 µs,
// and fails with an error wrapping ErrEmpty once the producer has put
// nothing for limit. A take that finds the ring empty because other takes got
// there first keeps waiting while the producer keeps putting.
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
