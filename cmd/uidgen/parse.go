package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/seed4d941b13/uidgen"
)

func runParse(args []string, stdout, stderr io.Writer, _ leaseStore) error {
	fs := newFlagSet("parse", "parse [-json] [-layout NAME | layout flags] ID...",
		"uidgen parse -json 512360392635531264\n  uidgen parse -layout discord -json 175928847299117063", stderr)
	asJSON := fs.Bool("json", false, "print each ID as a JSON object with string numbers, one per line")
	named := fs.String("layout", "", "read the IDs in this named layout instead of the layout flags\n(uidgen layouts lists them: bwmarrin, sonyflake, discord, ...)")
	var layout layoutFlags
	layout.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("%w: no ID to parse", ErrUsage)
	}
	l, err := parseLayout(fs, *named, &layout)
	if err != nil {
		return err
	}
	uids := make([]int64, fs.NArg())
	for i, arg := range fs.Args() {
		if uids[i], err = strconv.ParseInt(arg, 10, 64); err != nil {
			return fmt.Errorf("%w: %q is not a 64-bit integer", ErrUsage, arg)
		}
	}
	enc := json.NewEncoder(stdout)
	for _, uid := range uids {
		if *asJSON {
			if err := enc.Encode(l.Parse(uid)); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintln(stdout, l.ParseUID(uid))
	}
	return nil
}

// parseLayout returns the layout parse reads in: the one called name, or
// without a name the one the layout flags describe. A name and a layout
// flag together are a usage error naming both.
func parseLayout(fs *flag.FlagSet, name string, layout *layoutFlags) (uidgen.Layout, error) {
	if name == "" {
		return layout.layout()
	}
	if set := setFlag(fs, "time-bits", "worker-bits", "seq-bits", "gene-bits", "epoch"); set != "" {
		return uidgen.Layout{}, fmt.Errorf("%w: -layout %s and -%s: the named layout has its own; give one or the other", ErrUsage, name, set)
	}
	l, err := uidgen.NamedLayout(name)
	if err != nil {
		return uidgen.Layout{}, callerError{err}
	}
	return l, nil
}
