// Package etcdworker lends worker IDs from etcd: a uidgen.Leaser with the
// same contract as package worker's Leased, for fleets that already run an
// etcd cluster and want no WORKER_NODE table, and whose coordination store
// must keep every acknowledged write through the loss of a member. etcd
// commits through Raft: a write it acknowledged survives the loss of any
// minority of members.
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
// `uidgen workers -etcd ENDPOINTS` shows a fleet as a table (func List).
// Read Config next for the fleet's prefix and the lease's TTL and horizon;
// then, below, the keys, and why two holders of an ID never use the same
// second.
//
// Every error starts "etcdworker: ", names the operation and the value at
// fault, and wraps the etcd client's own error where there is one. Its
// sentinels are the root package's, shared with the other stores so that a
// fleet that moves between them matches the same errors: uidgen.ErrConfig
// (no Config.Client, a Config.Prefix with a character other than a
// printable ASCII one, a lease time out of its limits), uidgen.ErrBadKey (a
// key under the prefix that another program wrote), and the lease errors
// package worker returns too (uidgen.ErrNoFreeID, uidgen.ErrLeaseLost, ...).
//
// # Keys
//
// A fleet is a key prefix (Config.Prefix, "/uidgen/" by default), so
// several fleets share one cluster. Under it, each worker ID ever leased has
// two keys, readable with `etcdctl get --prefix /uidgen/`:
//
//	/uidgen/reserved/7   1764012345
//	/uidgen/held/7       {"host":"api-3","pid":4242,"since":"2026-11-24T19:05:00Z"}
//
// reserved/ID holds the last Unix second reserved for the ID's holders, and
// is never deleted: it remembers the seconds earlier holders may have used.
// held/ID exists while a process holds the ID, and is attached to an etcd
// lease of Config.LeaseTTL that the holder keeps alive: when the holder
// dies, or is cut off from the cluster's majority for a TTL, etcd deletes
// the key and the ID is free.
//
// The holder renews every third of the TTL: one LeaseKeepAliveOnce and one
// transaction that moves reserved/ID ahead, two requests in all. Each
// renewal reserves the horizon and a third of the TTL at the pace the
// holder asks for seconds, as worker's leases do, so a holder cut off from
// etcd, or whose cluster has lost its quorum, goes on for
// Config.LeaseHorizon; a holder that dies leaves its ID reserved up to that
// far ahead, and the next holder of that ID starts above it.
//
// It logs nothing unless given a logger (Config.Logger). The etcd client
// logs through the zap logger of its clientv3.Config, or to standard error
// when that has none.
//
// # Why two holders of an ID never use the same second
//
// The guarantee: if holders h1 and then h2 hold worker ID w, every second
// h1 ever uses is below every second h2 uses. It rests on etcd's
// transactions alone: each is applied atomically, in one order, and its
// comparisons are evaluated on the keys as every earlier transaction and
// every lease expiry left them. Clocks decide only when a lease counts as
// expired (the etcd leader's) and which free ID looks cold (the holder's);
// a wrong clock costs churn, never a duplicate.
//
// A holder is known by the create revision of its held/w key: the revision
// of the transaction that took w, which no other key creation shares. The
// invariant: every second that any holder of w, past or present, may still
// use is at most the value of reserved/w; and every second of the holder
// whose key is held/w is at least its First(). These steps keep it, each
// naming the test that fails without it: a subtest of TestLeaseConformance,
// the lease suite (leasetest.Run) on one etcd member:
//
//  1. A holder uses second s only if s <= Reserved(), and Reserved() rises
//     to t only after a transaction IF CreateRevision(held/w) == its own
//     THEN put reserved/w = max(t, the most it ever wrote) succeeded. While
//     its key exists, no other transaction writes reserved/w (step 3 needs
//     held/w absent), so reserved/w holds at least what the holder may use.
//     (Write t alone: TestLeaseConformance/ReservationNeverFalls sees
//     reserved/w fall below Reserved() once the holder's pace drops.)
//  2. Once held/w is gone (deleted by the lease's expiry, or replaced by a
//     new holder's key), every renewal of the old holder fails its
//     comparison, whatever its client believes of its own lease, and
//     Reserved() stops for good. A holder partitioned from the cluster's
//     majority past its TTL can therefore extend nothing when it comes back.
//     (Drop the comparison: TestLeaseConformance/Lost sees the old holder
//     extend the reservation under its successor.)
//  3. A new holder reads reserved/w, r, with its mod revision m, and takes w
//     with one transaction IF Version(held/w) == 0 AND
//     ModRevision(reserved/w) == m THEN put reserved/w and put held/w under
//     its etcd lease. It succeeds only if r is the reservation at the
//     instant of the takeover; from that instant every earlier holder's
//     transaction fails (step 2), so by the invariant every second they may
//     ever use is at most r. (Drop the ModRevision comparison:
//     TestLeaseConformance/Concurrent sees a holder start at or below a
//     second its predecessor used, the ID having been taken, used and
//     released between the read and the takeover.)
//  4. The new holder's First() is max(now, r + 1), now by its own clock:
//     above every second of the earlier holders. (Take now alone:
//     TestLeaseConformance/StartsAboveReservation.)
//  5. Release, in one transaction IF CreateRevision(held/w) == its own, puts
//     reserved/w = max(lastUsed, First()-1) and deletes held/w. Lowering
//     the reservation is safe: the holder used nothing above lastUsed, and
//     the earlier holders nothing above r <= First()-1. (Record lastUsed
//     below First()-1: TestLeaseConformance/Release.)
//  6. An ID never leased has no reserved/w: ModRevision 0 in step 3 takes it
//     only while the key is still absent, and the holder's First() is its
//     clock's now. This is why reserved/ keys must never be deleted.
//
// A holder that finds its lease lost goes on using the seconds reserved
// before, which step 3 left below its successor's, and then Wait fails with
// uidgen.ErrLeaseLost. A holder cut off from etcd does the same with the
// client's error, keeps its lease if it comes back within the TTL, and
// renews again (TestLeaseQuorumLost).
//
// Which free ID step 3 takes, and how far ahead step 1 reserves, change
// none of the above. A new holder takes the lowest free ID whose reservation
// has passed, or passes within ten seconds by its own clock, then the lowest
// ID never leased, and one still reserved ahead only when no other is free,
// the one whose reservation ends soonest (TestLeaseConformance/ColdFirst).
//
// # What etcd must keep
//
// The proof needs etcd to keep what it acknowledged, which Raft does while
// a majority of members keeps its data: do not restore a member from an old
// backup into a live cluster, and do not run a fleet on a single member you
// may lose.
package etcdworker
