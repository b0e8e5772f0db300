// Package uidgen holds what every uidgen generator shares: the Layout that
// reads any ID (Baidu's layouts included, expired ones too), the ID it reads
// into, the Assigner and the Leaser that hand a process its worker ID, the
// Clock, and the errors the generators return.
//
// The generators live in packages of their own: cached, the product (a
// lock-free ring kept full by one goroutine), and defaultgen, the
// mutex-guarded baseline. Both take a flat Config whose zero value, but for
// its Assigner (or, for a worker ID that comes back, its Leaser), means the
// defaults:
//
//	g, err := cached.New(ctx, cached.Config{Assigner: uidgen.Static(7)})
//
// A UID is laid out as Baidu's uid-generator lays it out (see package bits):
//
//	| sign 1 | delta seconds | worker ID | sequence |
//
// so Go and Java services that share a WORKER_NODE table and a layout share
// one ID space, and either reads the other's IDs. A fleet takes its worker
// IDs from package worker (a database table), etcdworker or redisworker;
// package segment hands out dense numbers from a table instead.
//
// Errors read as one line. The sentinels here name the fault without a
// package prefix ("time bits exhausted"); a generator or the worker package
// adds its own prefix once, where its exported function returns, so an error
// reads "cached: next ID: ring is empty: time bits exhausted: ...".
//
// The words these docs use, such as tick, run, take, lease and claim,
// mean one thing each, defined in the repository's docs/glossary.md.
package uidgen
