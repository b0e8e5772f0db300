package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen"
)

const (
	genSynopsis = "gen [-n N] [-json | -encoding NAME | -format PATTERN [-tz ZONE]] [-opaque-key FILE] [-key K] [-generator cached|default] [-worker ID | -dsn DSN [-lease] | -etcd ENDPOINTS [-etcd-prefix P] | -redis URL [-redis-prefix P]] [-lease-ttl D] [-lease-horizon D] [-worker-ids LO-HI] [-layout NAME | layout flags] [-after ID]\n" +
		"       uidgen gen -segment TAG [-db FILE | -dsn DSN] [-n N] [-start S] [-step S] [-segment-table NAME] [-format PATTERN [-tz ZONE]]"
	genExample = "uidgen gen -n 3 -json\n  uidgen gen -n 3 -encoding base32\n  uidgen gen -n 3 -opaque-key keys.hex -encoding base62   # IDs to show the world\n  uidgen gen -segment order -n 5   # in the -db file\n  uidgen gen -segment order -dsn 'root@tcp(127.0.0.1:3306)/test' -n 5\n" +
		"  uidgen gen -layout twitter -worker 7 -format '001{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}' -tz UTC -n 3\n" +
		"  uidgen gen -segment order -format 'ORD-{yyyy}{MM}{dd}-{seq:6}' -n 3   # numbers that restart each day"
)

// genFlags are gen's flags.
type genFlags struct {
	fs        *flag.FlagSet
	n         int
	generator string
	asJSON    bool
	encoding  encodingFlag
	pattern   string // -format's
	zone      zoneFlag
	key       string
	opaque    opaqueFlag
	maker     makerFlags
	segment   segmentFlags
}

func runGen(args []string, stdout, stderr io.Writer, store leaseStore) error {
	var f genFlags
	f.register(newFlagSet("gen", genSynopsis, genExample, stderr), store)
	if err := parseFlags(f.fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if f.segment.tag != "" {
		return f.genNumbers(stdout)
	}
	format, err := f.idFormat()
	if err != nil {
		return err
	}
	key, err := f.shardKey()
	if err != nil || f.n == 0 {
		return err // -n 0: nothing to print, so no worker ID taken, and no row or lease spent
	}
	return f.print(format, key, stdout, stderr)
}

func (f *genFlags) register(fs *flag.FlagSet, store leaseStore) {
	f.fs = fs
	fs.IntVar(&f.n, "n", 10, "how many IDs to print")
	fs.StringVar(&f.generator, "generator", "cached", "cached (the ring) or default (per-call Snowflake)")
	fs.BoolVar(&f.asJSON, "json", false, "print each ID taken apart, as a JSON object with string numbers")
	f.encoding.register(fs, "write each ID as")
	fs.StringVar(&f.pattern, "format", "", "print each ID, or with -segment each number, through the serial number `PATTERN`:\n"+patternHelp)
	f.zone.register(fs, serialDates)
	f.opaque.register(fs, "print each ID as opaque text, as 1_8532075140237461187 (key 1, in -encoding),\n"+
		"which hides its time, worker and order from those without the keys of `FILE`:")
	fs.StringVar(&f.key, "key", "", "make every ID for this shard key (needs -gene-bits): its low gene bits are the key's")
	f.maker.register(fs, store)
	f.maker.registerMaxAhead(fs, "; with -format, "+serialMaxAhead.String()+" unless given: its strings print the ID's time")
	f.segment.register(fs)
}

// genRules are the flags of gen that contradict each other.
var genRules = []flagRule{
	{flag: "json", not: "encoding", why: "-json prints each ID taken apart, its numbers in decimal; pick one"},
	{flag: "json", not: "format", why: "each prints the ID its own way; pick one"},
	{flag: "encoding", not: "format", why: "each prints the ID its own way; pick one"},
	{flag: "opaque-key", not: "json", why: "-json shows what the opaque ID hides; pick one"},
	{flag: "opaque-key", not: "format", why: "-format shows what the opaque ID hides; pick one"},
	{flag: "tz", needs: "format", why: "it is the zone of the pattern's dates"},
}

// check refuses arguments, and flags that contradict each other.
func (f *genFlags) check() error {
	if f.fs.NArg() > 0 {
		// The count is -n's: "gen 5" reads as five IDs, and would print ten.
		if _, err := strconv.Atoi(f.fs.Arg(0)); err == nil {
			return fmt.Errorf("%w: unexpected argument %q: for %[2]s IDs, write -n %[2]s", ErrUsage, f.fs.Arg(0))
		}
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, f.fs.Arg(0))
	}
	if f.n < 0 {
		return fmt.Errorf("%w: -n %d: must be 0 or more", ErrUsage, f.n)
	}
	if err := f.segment.checkTag(f.fs); err != nil {
		return err
	}
	return checkRules(f.fs, append(genRules, segmentRules...)...)
}

// genNumbers prints -n numbers of -segment's tag, through -format's
// pattern where given.
func (f *genFlags) genNumbers(stdout io.Writer) error {
	if err := segmentConflicts(f.fs, "segment", "segment-table", "start", "step", "claim-every", "max-step", "dsn", "db", "n", "format", "tz"); err != nil {
		return err
	}
	dsn, err := f.maker.worker.tagDSN()
	if err != nil || f.n == 0 {
		return err // -n 0 claims no numbers
	}
	if f.pattern != "" {
		return genSerials(&f.segment, &f.zone, f.pattern, dsn, f.n, stdout)
	}
	return genSegment(&f.segment, dsn, f.n, stdout)
}

// idFormat returns the func that writes each ID: through -format's
// pattern, as -opaque-key's opaque text, else in -encoding. -json's
// objects are print's.
func (f *genFlags) idFormat() (func(int64) (string, error), error) {
	if f.pattern != "" {
		layout, err := f.maker.layout.layout()
		if err != nil {
			return nil, err
		}
		return f.patternFormat(layout)
	}
	o, err := f.opaque.opaque(&f.maker.layout)
	if err != nil || o == nil {
		return infallible(f.encoding.Format), err
	}
	return func(id int64) (string, error) { return o.Format(id, f.encoding.Encoding) }, nil
}

// patternFormat returns the format of -format's pattern for layout.
func (f *genFlags) patternFormat(layout uidgen.Layout) (func(int64) (string, error), error) {
	sf, err := f.zone.snowflake(f.pattern, layout)
	if err != nil {
		return nil, err
	}
	// Every Snowflake pattern prints the ID's time (NewSnowflake refuses
	// one without its date and time fields), which borrowing would date
	// in the future.
	if setFlag(f.fs, "max-ahead") == "" {
		f.maker.maxAhead = serialMaxAhead
	}
	return infallible(sf.Format), nil
}

// infallible adapts a format that cannot fail to idFormat's kind.
func infallible(format func(int64) string) func(int64) (string, error) {
	return func(id int64) (string, error) { return format(id), nil }
}

// shardKey returns -key's shard key, nil where it is not given, and
// checks that the layout has gene bits to hold it.
func (f *genFlags) shardKey() (*int64, error) {
	if f.key == "" {
		return nil, nil
	}
	layout, err := f.maker.layout.layout()
	if err != nil {
		return nil, err
	}
	k, err := strconv.ParseInt(f.key, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("%w: -key %q is not a 64-bit integer", ErrUsage, f.key)
	}
	if layout.Bits().Spec().GeneBits == 0 {
		return nil, fmt.Errorf("%w: -key needs -gene-bits: the key goes in the gene bits", ErrUsage)
	}
	return &k, nil
}

// print takes -n IDs from the generator the flags name, for key where it
// is not nil, and prints each: taken apart as JSON with -json, else
// through format.
func (f *genFlags) print(format func(int64) (string, error), key *int64, stdout, stderr io.Writer) error {
	g, err := f.maker.open(f.generator)
	if err != nil {
		return err
	}
	defer g.close()
	defer noteAhead(stderr, g)
	take := g.next
	if key != nil {
		take = func() (int64, error) { return g.nextFor(*key) }
	}
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	for range f.n {
		uid, err := take()
		if err == nil && f.asJSON {
			err = enc.Encode(g.parse(uid))
		} else if err == nil {
			err = writeLine(out, format, uid)
		}
		if err != nil {
			out.Flush() // what was printed before
			return err
		}
	}
	return out.Flush()
}

// writeLine writes uid through format, and a newline.
func writeLine(out *bufio.Writer, format func(int64) (string, error), uid int64) error {
	s, err := format(uid)
	if err != nil {
		return err
	}
	out.WriteString(s)
	return out.WriteByte('\n')
}

// encodings are what -encoding names, by their String.
var encodings = []uidgen.Encoding{uidgen.Decimal, uidgen.Base32, uidgen.Base62, uidgen.Base58}

// encodingFlag is -encoding NAME, one of encodings; its zero value is
// uidgen.Decimal.
type encodingFlag struct{ uidgen.Encoding }

func (f *encodingFlag) register(fs *flag.FlagSet, verb string) {
	fs.Var(f, "encoding", verb+" the encoding `NAME`: "+encodingNames()+
		" (default decimal); base32 and base62 are fixed width and sort as the IDs do, base58 is bwmarrin/snowflake's")
}

// Set takes an encoding's name, or fails naming the ones it takes; the
// flag package makes that a usage error.
func (f *encodingFlag) Set(name string) error {
	for _, e := range encodings {
		if e.String() == name {
			f.Encoding = e
			return nil
		}
	}
	return fmt.Errorf("unknown encoding: want %s", encodingNames())
}

// encodingNames is "decimal, base32, base62 or base58".
func encodingNames() string {
	names := make([]string, len(encodings))
	for i, e := range encodings {
		names[i] = e.String()
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// aheadNote is how far ahead of the clock gen's IDs may run before it says
// so: a run of a few hundred thousand IDs borrows seconds, not minutes.
const aheadNote = time.Minute

// noteAhead says on stderr how far ahead of the clock g's IDs ran, where
// that is aheadNote or more: a person reading the IDs' time, as parse
// shows it, would otherwise take it for the time they were made.
func noteAhead(stderr io.Writer, g maker) {
	if ahead := g.ahead(); ahead >= aheadNote {
		fmt.Fprintf(stderr, "uidgen gen: note: the IDs' time ran %v ahead of the clock: more IDs a second than the layout's sequence bits hold "+
			"borrow seconds to come; -max-ahead bounds that, and gen then waits for the clock\n", ahead.Round(time.Second))
	}
}
