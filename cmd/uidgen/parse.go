package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/seed4d941b13/uidgen"
)

const (
	parseSynopsis = "parse [-json] [-tz ZONE] [-encoding NAME | -format PATTERN] [-opaque-key FILE] [-layout NAME | layout flags] ID..."
	parseExample  = "uidgen parse -json 512360392635531264\n  uidgen parse -layout discord -json 175928847299117063\n  uidgen parse -encoding base32 0E7252000AG02\n" +
		"  uidgen parse -opaque-key keys.hex 1_8532075140237461187   # as gen -opaque-key keys.hex wrote it\n" +
		"  uidgen parse -layout twitter -tz UTC -format '001{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}' 0012026112708300012300070005"
)

// parseOptions are parse's flags.
type parseOptions struct {
	fs       *flag.FlagSet
	asJSON   bool
	encoding encodingFlag
	pattern  string // -format's
	zone     zoneFlag
	opaque   opaqueFlag
	layout   layoutFlags
}

func runParse(args []string, stdout, stderr io.Writer, _ leaseStore) error {
	var p parseOptions
	p.register(newFlagSet("parse", parseSynopsis, parseExample, stderr))
	if err := parseFlags(p.fs, args); err != nil {
		return err
	}
	if err := p.check(); err != nil {
		return err
	}
	l, err := p.layout.layout()
	if err != nil {
		return err
	}
	// The times print in -tz's zone; without it, in the pattern's (UTC),
	// or in the local zone, as Baidu's parse prints them.
	printIn := time.Local
	if p.zone.name != "" || p.pattern != "" {
		if printIn, err = p.zone.loc(); err != nil {
			return err
		}
	}
	read, err := p.reader(l)
	if err != nil {
		return err
	}
	uids := make([]int64, p.fs.NArg())
	for i, arg := range p.fs.Args() {
		if uids[i], err = read(arg); err != nil {
			return callerError{err}
		}
		if p.opaque.file != "" {
			warnFarAhead(stderr, l, arg, uids[i])
		}
	}
	return p.print(stdout, l, printIn, uids)
}

// farAhead is how far past the clock a revealed ID's time makes parse
// warn. Load borrows minutes, hours at worst; a text revealed under the
// wrong keys or layout reveals some number of the space, whose time is
// years ahead as often as not.
const farAhead = 24 * time.Hour

// warnFarAhead warns on stderr where the ID that text revealed is dated
// more than farAhead past the clock: every text reveals to some ID, and
// only its time hints that the keys or the layout were not the ones that
// hid it.
func warnFarAhead(stderr io.Writer, l uidgen.Layout, text string, uid int64) {
	if at := l.Parse(uid).Time; time.Until(at) > farAhead {
		fmt.Fprintf(stderr, "uidgen parse: warning: %q reveals an ID dated %s, %d days past the clock: were its key file and layout the ones that hid it?\n",
			text, at.UTC().Format(time.DateOnly), int(time.Until(at)/(24*time.Hour)))
	}
}

func (p *parseOptions) register(fs *flag.FlagSet) {
	p.fs = fs
	fs.BoolVar(&p.asJSON, "json", false, "print each ID as a JSON object with string numbers, one per line")
	p.encoding.register(fs, "read each ID from")
	fs.StringVar(&p.pattern, "format", "", "read each ID from a string of the serial number `PATTERN` (as gen -format wrote it):\n"+patternHelp)
	p.zone.register(fs, "-format's dates (default UTC), and of the times printed (default: -format's, else the local zone, as Baidu's parse prints them)")
	p.opaque.register(fs, "read each ID from its opaque text, as gen -opaque-key wrote it in -encoding\nand the same layout, with the keys of `FILE`:")
	p.layout.register(fs)
}

// check refuses flags that contradict each other, and no ID to parse.
func (p *parseOptions) check() error {
	if err := checkRules(p.fs,
		flagRule{flag: "encoding", not: "format", why: "a string is in one or the other; pick one"},
		flagRule{flag: "opaque-key", not: "format", why: "a string is in one or the other; pick one"},
	); err != nil {
		return err
	}
	if p.fs.NArg() == 0 {
		p.fs.Usage()
		return fmt.Errorf("%w: no ID to parse", ErrUsage)
	}
	return nil
}

// reader returns the func that reads each argument as an ID of layout l:
// through -format's pattern, as -opaque-key's opaque text, else in
// -encoding.
func (p *parseOptions) reader(l uidgen.Layout) (func(string) (int64, error), error) {
	if p.pattern != "" {
		f, err := p.zone.snowflake(p.pattern, l)
		if err != nil {
			return nil, err
		}
		return f.Parse, nil
	}
	o, err := p.opaque.opaque(&p.layout)
	if err != nil || o == nil {
		return p.encoding.Parse, err
	}
	return func(text string) (int64, error) { return o.Parse(text, p.encoding.Encoding) }, nil
}

// print prints each of uids in layout l, its time in printIn: as JSON
// with -json, else in Baidu's string.
func (p *parseOptions) print(stdout io.Writer, l uidgen.Layout, printIn *time.Location, uids []int64) error {
	enc := json.NewEncoder(stdout)
	for _, uid := range uids {
		if !p.asJSON {
			fmt.Fprintln(stdout, l.ParseUIDIn(uid, printIn))
			continue
		}
		id := l.Parse(uid)
		id.Time = id.Time.In(printIn)
		if err := enc.Encode(id); err != nil {
			return err
		}
	}
	return nil
}
