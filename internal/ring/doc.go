// Package ring is the body of ringbuffer.Ring. It lives here so that the
// module's generators can call TakeFast, the common case of a take, which
// Go inlines into their NextID, while ringbuffer's API has no such method:
// ringbuffer.Ring is this Ring under another name, and ringbuffer's errors
// these. Each method's doc is ringbuffer's; Drain, which only a
// generator's Close needs, is this package's own. Why no value is taken
// twice or lost, step by step with the test that fails without each step
// (TestStress, TestPutBelowLowest, TestDrainStress), is in the
// repository's docs/design.md#the-ring.
package ring
