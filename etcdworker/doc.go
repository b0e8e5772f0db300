// Package etcdworker lends worker IDs from etcd: a uidgen.Leaser with the
// same contract as package worker's Leased, for fleets that already run an
// etcd cluster and want no WORKER_NODE table, and whose coordination store
// must keep every acknowledged write through the loss of a member (etcd
// commits through Raft).
//
//	c, err := clientv3.New(clientv3.Config{
//		Endpoints: []string{"http://10.0.0.1:2379"}, Logger: zap.NewNop(),
//		DialKeepAliveTime: 5 * time.Second, DialKeepAliveTimeout: 3 * time.Second, // see docs/etcd.md
//	})
//	defer c.Close() // deferred first, so it runs after g.Close
//	l, err := etcdworker.NewLeased(etcdworker.Config{Client: c})
//	g, err := cached.New(ctx, cached.Config{Leaser: l})
//	defer g.Close() // gives the ID back
//
// A fleet is a key prefix (Config.Prefix, "/uidgen/" by default): under it,
// reserved/ID holds the last Unix second reserved for the ID's holders and
// is never deleted, and held/ID names the holder, under an etcd lease of
// Config.LeaseTTL that the holder keeps alive. `uidgen workers -etcd
// ENDPOINTS` shows a fleet as a table (func List). It logs nothing unless
// given a logger (Config.Logger); the etcd client logs through its own
// clientv3.Config.
//
// Every error starts "etcdworker: ", names the operation and the value at
// fault, and wraps the etcd client's own error where there is one. Its
// sentinels are the root package's, shared with the other stores:
// uidgen.ErrConfig (no Config.Client, a Config.Prefix with a character
// other than a printable ASCII one, a lease time out of its limits),
// uidgen.ErrBadKey (a key under the prefix that another program wrote),
// and the lease errors (uidgen.ErrNoFreeID, uidgen.ErrLeaseLost, ...).
//
// The promise: if holders h1 and then h2 hold worker ID w, every second h1
// ever uses is below every second h2 uses, while a majority of the
// cluster's members keeps its data. The proof, with etcd's transactions
// and revisions, is in the repository's
// docs/design.md#etcd-transactions-and-revisions; the keys, the command's
// flags and what a lease costs, in docs/etcd.md.
package etcdworker
