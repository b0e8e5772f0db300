package main

import (
	"encoding/json"
	"fmt"
	"io"
)

func runParse(args []string, stdout, stderr io.Writer, _ leaseStore) error {
	fs := newFlagSet("parse", "parse [-json] [-encoding NAME] [-layout NAME | layout flags] ID...",
		"uidgen parse -json 512360392635531264\n  uidgen parse -layout discord -json 175928847299117063\n  uidgen parse -encoding base32 0E7252000AG02", stderr)
	asJSON := fs.Bool("json", false, "print each ID as a JSON object with string numbers, one per line")
	var encoding encodingFlag
	encoding.register(fs, "read each ID from")
	var layout layoutFlags
	layout.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("%w: no ID to parse", ErrUsage)
	}
	l, err := layout.layout()
	if err != nil {
		return err
	}
	uids := make([]int64, fs.NArg())
	for i, arg := range fs.Args() {
		if uids[i], err = encoding.Parse(arg); err != nil {
			return callerError{err}
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
