// Package racebuild tells tests whether the race detector is on, so that
// stress tests can shrink to a size the detector runs in reasonable time
// (it makes atomics and channel operations ten times slower or more).
package racebuild
