package main

import (
	"encoding/json"
	"fmt"
	"io"
)

func runParse(args []string, stdout, stderr io.Writer, _ leaseStore) error {
	fs := newFlagSet("parse", "parse [-json] [-encoding NAME | -format PATTERN [-tz ZONE]] [-layout NAME | layout flags] ID...",
		"uidgen parse -json 512360392635531264\n  uidgen parse -layout discord -json 175928847299117063\n  uidgen parse -encoding base32 0E7252000AG02\n"+
			"  uidgen parse -layout twitter -tz UTC -format '001{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}' 0012026112708300012300070005", stderr)
	asJSON := fs.Bool("json", false, "print each ID as a JSON object with string numbers, one per line")
	var encoding encodingFlag
	encoding.register(fs, "read each ID from")
	pattern := fs.String("format", "", "read each ID from a string of the serial number `PATTERN` (as gen -format wrote it):\n"+patternHelp)
	var zone zoneFlag
	zone.register(fs)
	var layout layoutFlags
	layout.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *pattern != "" && setFlag(fs, "encoding") != "":
		return fmt.Errorf("%w: -encoding and -format: a string is in one or the other; pick one", ErrUsage)
	case zone.name != "" && *pattern == "":
		return fmt.Errorf("%w: -tz needs -format: it is the zone of the pattern's dates", ErrUsage)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("%w: no ID to parse", ErrUsage)
	}
	l, err := layout.layout()
	if err != nil {
		return err
	}
	read := encoding.Parse
	if *pattern != "" {
		f, err := zone.snowflake(*pattern, l)
		if err != nil {
			return err
		}
		read = f.Parse
	}
	uids := make([]int64, fs.NArg())
	for i, arg := range fs.Args() {
		if uids[i], err = read(arg); err != nil {
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
