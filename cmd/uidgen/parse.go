package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

func runParse(args []string, stdout, stderr io.Writer, _ leaseStore) error {
	fs := newFlagSet("parse", "parse [-json] [-tz ZONE] [-encoding NAME | -format PATTERN] [-layout NAME | layout flags] ID...",
		"uidgen parse -json 512360392635531264\n  uidgen parse -layout discord -json 175928847299117063\n  uidgen parse -encoding base32 0E7252000AG02\n"+
			"  uidgen parse -layout twitter -tz UTC -format '001{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}' 0012026112708300012300070005", stderr)
	asJSON := fs.Bool("json", false, "print each ID as a JSON object with string numbers, one per line")
	var encoding encodingFlag
	encoding.register(fs, "read each ID from")
	pattern := fs.String("format", "", "read each ID from a string of the serial number `PATTERN` (as gen -format wrote it):\n"+patternHelp)
	var zone zoneFlag
	zone.register(fs, "-format's dates (default UTC), and of the times printed (default: -format's, else the local zone, as Baidu's parse prints them)")
	var layout layoutFlags
	layout.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *pattern != "" && setFlag(fs, "encoding") != "" {
		return fmt.Errorf("%w: -encoding and -format: a string is in one or the other; pick one", ErrUsage)
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("%w: no ID to parse", ErrUsage)
	}
	l, err := layout.layout()
	if err != nil {
		return err
	}
	// The times print in -tz's zone; without it, in the pattern's (UTC),
	// or in the local zone, as Baidu's parse prints them.
	printIn := time.Local
	if zone.name != "" || *pattern != "" {
		if printIn, err = zone.loc(); err != nil {
			return err
		}
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
			id := l.Parse(uid)
			id.Time = id.Time.In(printIn)
			if err := enc.Encode(id); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintln(stdout, l.ParseUIDIn(uid, printIn))
	}
	return nil
}
