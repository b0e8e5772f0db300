// Package ring is the body of ringbuffer.Ring, whose package doc says how
// it works and why no value is taken twice or lost. It lives here so that
// the module's generators can call TakeFast, the common case of a take,
// which Go inlines into their NextID, while ringbuffer's API has no such
// method: ringbuffer.Ring is this Ring under another name, and
// ringbuffer.ErrEmpty this ErrEmpty. Each method's doc is ringbuffer's.
package ring
