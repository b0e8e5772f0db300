package ringbuffer

import (
	"fmt"
	"runtime"
	"time"
)

// DefaultWait is how long a Take on an empty ring waits for the producer
// under the default policy. A producer that is running refills a ring in
// microseconds; one that has not refilled it in DefaultWait is starved or
// gone, and the caller is better told.
const DefaultWait = 100 * time.Millisecond

// PutPolicy is Baidu's RejectedPutBufferHandler: it is told of the values a
// Put could not place, after the ring has counted them. It cannot save them:
// they are dropped, so a value handed to it is never handed out by the ring.
// It runs on the producer's goroutine and should return quickly.
type PutPolicy func(rejected []int64)

// TakePolicy is Baidu's RejectedTakeBufferHandler. Take calls it each time it
// finds the ring empty, after waking the producer, with how long this Take has
// been waiting. Returning nil makes Take look again; returning an error makes
// Take fail with it. It must not return nil forever while the ring stays
// empty, or Take never returns.
type TakePolicy func(waited time.Duration) error

// Fail is Baidu's default take policy: an empty ring is an error at once,
// wrapping ErrEmpty.
func Fail(time.Duration) error {
	return fmt.Errorf("%w: not waiting for the producer", ErrEmpty)
}

// Wait returns a take policy that yields the processor to the producer
// between looks at the ring for up to limit, then fails with an error
// wrapping ErrEmpty.
func Wait(limit time.Duration) TakePolicy {
	return func(waited time.Duration) error {
		if waited >= limit {
			return fmt.Errorf("%w: waited %v for the producer, the limit is %v", ErrEmpty, waited, limit)
		}
		runtime.Gosched()
		return nil
	}
}
