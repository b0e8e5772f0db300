// Package ring is the body of ringbuffer.Ring, whose package doc says how
// it works and why no value is taken twice or lost. It lives here so that
// the module's generators can call TakeFast, the common case of a take,
// which Go inlines into their NextID: ringbuffer.Ring is this Ring under
// another name, and its API shows none of this package.
package ring
