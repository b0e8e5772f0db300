package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
)

// command is one subcommand: its flags are parsed by run itself, so each
// command owns its flag set and its -h text. store is Main's leaseStore;
// the commands that make IDs, and workers, offer its flags.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer, store leaseStore) error
}

// commands lists the subcommands in the order help shows them.
var commands = []command{
	{"gen", "print new IDs", runGen},
	{"parse", "take IDs apart: time, worker ID, sequence", runParse},
	{"layouts", "list the named layouts parse -layout reads: Twitter's, sonyflake's, Discord's, ...", runLayouts},
	{"bench", "measure the cached generator against the default one", runBench},
	{"plan", "how long a layout's time and worker bits last, at a load", runPlan},
	{"schema", "print the WORKER_NODE table's DDL, as EnsureSchema makes it", runSchema},
	{"workers", "show the WORKER_NODE table: which IDs are held, free or spent", runWorkers},
	{"segments", "show the leaf_alloc table of segment mode: each tag's next number and step", runSegments},
	{"serve", "serve IDs over HTTP, with Prometheus metrics at /metrics", runServe},
}

// ErrUsage marks an error the user can fix by calling differently: Main
// exits 2. A leaseStore wraps it for a misuse of its flags.
var ErrUsage = errors.New("usage")

// callerError marks a library's error as ErrUsage without changing its
// text, which already says what was wrong.
type callerError struct{ error }

func (e callerError) Unwrap() error        { return e.error }
func (e callerError) Is(target error) bool { return target == ErrUsage }

// Main executes the command line args (without the program's name) and
// returns the exit status: 0, 1 when a command failed, 2 when it was
// called wrongly. store is the place besides the worker table that worker
// IDs are leased from, as its flags ask: main passes newStores, etcd and
// Redis.
func Main(args []string, stdout, stderr io.Writer, store leaseStore) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" && len(args) == 1 {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	name, rest := args[0], args[1:]
	if name == "help" {
		name, rest = args[1], []string{"-h"}
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == name })
	if i < 0 {
		fmt.Fprintf(stderr, "uidgen: unknown command %q\n\n", name)
		usage(stderr)
		return 2
	}
	err := commands[i].run(rest, stdout, stderr, store)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(stderr, "uidgen %s: %v\n", name, err)
		return 2
	default:
		fmt.Fprintf(stderr, "uidgen %s: %v\n", name, err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "uidgen makes, reads and measures unique 64-bit IDs (Baidu uid-generator layout).")
	fmt.Fprintln(w, "\nUsage: uidgen COMMAND [flags]")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'uidgen COMMAND -h' for a command's flags and an example.")
}

// newFlagSet returns a flag set for a command whose -h prints the summary,
// the example and the flags, and whose errors go back to Main (exit 2).
func newFlagSet(name, synopsis, example string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: uidgen %s\n\n", synopsis)
		fmt.Fprintf(stderr, "Example:\n  %s\n\nFlags:\n", example)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs, telling a usage error from a request for
// help. The flag package prints its error and the whole help for a bad
// flag as for -h; a mistyped flag gets its one-line error instead, and a
// pointer to -h, from Main.
func parseFlags(fs *flag.FlagSet, args []string) error {
	help, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.Usage = help
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		help()
		return err
	case err != nil:
		return fmt.Errorf("%w: %v\nrun 'uidgen %s -h' for help", ErrUsage, err, fs.Name())
	}
	return nil
}

// usageIf marks err from building a generator as a usage error (exit 2)
// when the flags were at fault: a bad layout, epoch or worker ID. Other
// failures, such as an unreachable database, exit 1.
func usageIf(err error) error {
	for _, bad := range []error{bits.ErrLayout, uidgen.ErrConfig, uidgen.ErrTimeExhausted, uidgen.ErrWorkerIDRange} {
		if errors.Is(err, bad) {
			return callerError{err}
		}
	}
	return err
}
