// Command uidgen makes, reads and measures uidgen IDs.
//
//	uidgen gen -n 5            five IDs, the worker ID leased from a SQLite file
//	uidgen gen -worker 7 -n 5  five IDs of worker ID 7, leased from it
//	uidgen parse 512360392635531264
//	uidgen parse -layout bwmarrin 1541815603606036480   an ID of another Snowflake
//	uidgen layouts             the named layouts: tick, widths, epoch, when each runs out
//	uidgen bench               the cached generator against the default one, 3s each
//	uidgen plan -qps 100000    how long the default layout lasts at that load
//	uidgen schema              the WORKER_NODE DDL, for -dsn's database
//	uidgen workers             the worker table: which IDs are held, free or spent
//	uidgen gen -segment TAG    dense numbers of a tag (Leaf's segment mode)
//	uidgen segments            the tag table: each tag's next number and step
//	uidgen serve -worker 3     IDs over HTTP at 127.0.0.1:8080, with Prometheus metrics
//	uidgen help COMMAND        what a command does, with an example
//
// The commands that hand out IDs (gen, serve) lease their worker ID, by
// default, from the WORKER_NODE table of a SQLite file (-db FILE, else
// $UIDGEN_DB, else $XDG_STATE_HOME/uidgen/uidgen.db or
// ~/.local/state/uidgen/uidgen.db), -worker's ID where given, so that a
// restart starts above every second the last run may have used; they keep
// segment tags there too. Or they take it from -dsn (a server's WORKER_NODE
// table: a fresh ID per start, or with -lease one that comes back), from
// -etcd ENDPOINTS with -etcd-prefix (docs/etcd.md), or from -redis URL,
// -redis-sentinel ADDRS with -redis-master NAME, or -redis-cluster ADDRS,
// with -redis-prefix and -redis-replicas (docs/redis.md). bench, whose IDs
// go to no one, takes a static -worker (0 by default) and keeps no store:
// it refuses those flags, and reads -db or -dsn only as the tag table of
// -segment. workers and segments list the file's tables, -dsn's, the etcd
// fleet's or the Redis fleet's:
//
//	uidgen serve -etcd http://10.0.0.1:2379,http://10.0.0.2:2379 -etcd-prefix /uidgen/orders/
//	uidgen workers -redis redis://10.0.0.5:6379/0 -redis-prefix '{orders}:'
//
// Every command takes -h. Bad flags print a message and exit with status 2.
// Why a fleet's IDs never repeat, and which tests show it, is in the
// repository's docs/design.md.
package main

import "os"

func main() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr, newStores(os.Stderr))) }
