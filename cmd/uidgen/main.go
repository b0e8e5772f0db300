// Command uidgen makes, reads and measures uidgen IDs.
//
//	uidgen gen -n 5            five IDs from a static worker ID
//	uidgen parse 512360392635531264
//	uidgen bench               the cached generator against the default one, 3s each
//	uidgen plan -qps 100000    how long the default layout lasts at that load
//	uidgen schema              the WORKER_NODE DDL, for -dsn's database
//	uidgen workers -dsn DSN    the worker table: which IDs are held, free or spent
//	uidgen gen -segment TAG -dsn DSN   dense numbers of a tag (Leaf's segment mode)
//	uidgen segments -dsn DSN   the tag table: each tag's next number and step
//	uidgen serve -worker 3     IDs over HTTP at 127.0.0.1:8080, with Prometheus metrics
//	uidgen help COMMAND        what a command does, with an example
//
// Every command takes -h. Bad flags print a message and exit with status 2.
package main

import (
	"os"

	"github.com/seed4d941b13/uidgen/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, nil)) }
