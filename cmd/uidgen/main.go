// Command uidgen makes, reads and measures uidgen IDs.
//
//	uidgen gen -n 5            five IDs from a static worker ID
//	uidgen parse 512360392635531264
//	uidgen parse -layout bwmarrin 1541815603606036480   an ID of another Snowflake
//	uidgen layouts             the named layouts: tick, widths, epoch, when each runs out
//	uidgen bench               the cached generator against the default one, 3s each
//	uidgen plan -qps 100000    how long the default layout lasts at that load
//	uidgen schema              the WORKER_NODE DDL, for -dsn's database
//	uidgen workers -dsn DSN    the worker table: which IDs are held, free or spent
//	uidgen gen -segment TAG -dsn DSN   dense numbers of a tag (Leaf's segment mode)
//	uidgen segments -dsn DSN   the tag table: each tag's next number and step
//	uidgen serve -worker 3     IDs over HTTP at 127.0.0.1:8080, with Prometheus metrics
//	uidgen help COMMAND        what a command does, with an example
//
// The commands that make IDs (gen, bench, serve) take their worker ID from
// -worker (a static ID), from -dsn (the WORKER_NODE table: a fresh ID per
// start, or with -lease one that comes back), from -etcd (a lease from an
// etcd cluster) or from -redis or -redis-sentinel (a lease from Redis);
// workers lists the table's IDs, the etcd fleet's or the Redis fleet's:
//
//	-etcd ENDPOINTS       lease the worker ID from the etcd cluster at these
//	                      comma-separated client URLs ($UIDGEN_ETCD)
//	-etcd-prefix PREFIX   the fleet's key prefix (default /uidgen/)
//	-redis URL            lease the worker ID from the Redis server at this
//	                      redis:// URL ($UIDGEN_REDIS)
//	-redis-sentinel ADDRS lease it from the primary these Sentinels watch,
//	-redis-master NAME    known to them by this name
//	-redis-prefix PREFIX  the fleet's key prefix (default {uidgen}:)
//	-redis-replicas N     replicas that must acknowledge each reservation
//
// For example:
//
//	uidgen serve -etcd http://10.0.0.1:2379,http://10.0.0.2:2379 -etcd-prefix /uidgen/orders/
//	uidgen workers -etcd http://10.0.0.1:2379 -etcd-prefix /uidgen/orders/
//	uidgen serve -redis redis://10.0.0.5:6379/0 -redis-prefix '{orders}:'
//	uidgen serve -redis-sentinel 10.0.0.6:26379,10.0.0.7:26379 -redis-master ids -redis-replicas 1
//
// Every command takes -h. Bad flags print a message and exit with status 2.
package main

import "os"

func main() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr, newStores(os.Stderr))) }
