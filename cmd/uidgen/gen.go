package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/seed4d941b13/uidgen"
)

func runGen(args []string, stdout, stderr io.Writer, store leaseStore) error {
	fs := newFlagSet("gen", "gen [-n N] [-json | -encoding NAME | -format PATTERN [-tz ZONE]] [-key K] [-generator cached|default] [-worker ID | -dsn DSN [-lease] | -etcd ENDPOINTS [-etcd-prefix P] | -redis URL [-redis-prefix P]] [-lease-ttl D] [-lease-horizon D] [-worker-ids LO-HI] [-layout NAME | layout flags] [-after ID]\n"+
		"       uidgen gen -segment TAG [-db FILE | -dsn DSN] [-n N] [-start S] [-step S] [-segment-table NAME] [-format PATTERN [-tz ZONE]]",
		"uidgen gen -n 3 -json\n  uidgen gen -n 3 -encoding base32\n  uidgen gen -segment order -n 5   # in the -db file\n  uidgen gen -segment order -dsn 'root@tcp(127.0.0.1:3306)/test' -n 5\n"+
			"  uidgen gen -layout twitter -worker 7 -format '001{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}' -tz UTC -n 3\n"+
			"  uidgen gen -segment order -format 'ORD-{yyyy}{MM}{dd}-{seq:6}' -n 3   # numbers that restart each day", stderr)
	n := fs.Int("n", 10, "how many IDs to print")
	generator := fs.String("generator", "cached", "cached (the ring) or default (per-call Snowflake)")
	asJSON := fs.Bool("json", false, "print each ID taken apart, as a JSON object with string numbers")
	var encoding encodingFlag
	encoding.register(fs, "write each ID as")
	pattern := fs.String("format", "", "print each ID, or with -segment each number, through the serial number `PATTERN`:\n"+patternHelp)
	var zone zoneFlag
	zone.register(fs, serialDates)
	key := fs.String("key", "", "make every ID for this shard key (needs -gene-bits): its low gene bits are the key's")
	var mf makerFlags
	mf.register(fs, store)
	mf.registerMaxAhead(fs, "; with -format, "+serialMaxAhead.String()+" unless given: its strings print the ID's time")
	var sf segmentFlags
	sf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		// The count is -n's: "gen 5" reads as five IDs, and would print ten.
		if _, err := strconv.Atoi(fs.Arg(0)); err == nil {
			return fmt.Errorf("%w: unexpected argument %q: for %[2]s IDs, write -n %[2]s", ErrUsage, fs.Arg(0))
		}
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	if *n < 0 {
		return fmt.Errorf("%w: -n %d: must be 0 or more", ErrUsage, *n)
	}
	if *asJSON && setFlag(fs, "encoding") != "" {
		return fmt.Errorf("%w: -json and -encoding: -json prints each ID taken apart, its numbers in decimal; pick one", ErrUsage)
	}
	if name := setFlag(fs, "json", "encoding"); name != "" && *pattern != "" {
		return fmt.Errorf("%w: -%s and -format: each prints the ID its own way; pick one", ErrUsage, name)
	}
	if zone.name != "" && *pattern == "" {
		return fmt.Errorf("%w: -tz needs -format: it is the zone of the pattern's dates", ErrUsage)
	}
	if err := sf.checkTag(fs); err != nil {
		return err
	}
	if sf.tag != "" {
		if err := segmentConflicts(fs, "segment", "segment-table", "start", "step", "claim-every", "max-step", "dsn", "db", "n", "format", "tz"); err != nil {
			return err
		}
		dsn, err := mf.worker.tagDSN()
		if err != nil || *n == 0 {
			return err // -n 0 claims no numbers
		}
		if *pattern != "" {
			return genSerials(&sf, &zone, *pattern, dsn, *n, stdout)
		}
		return genSegment(&sf, dsn, *n, stdout)
	}
	if name := setFlag(fs, "segment-table", "start", "step", "claim-every", "max-step"); name != "" {
		return fmt.Errorf("%w: -%s needs -segment", ErrUsage, name)
	}
	format := encoding.Format
	var (
		layout uidgen.Layout
		k      int64 // -key's
		err    error
	)
	if *pattern != "" || *key != "" {
		if layout, err = mf.layout.layout(); err != nil {
			return err
		}
	}
	if *pattern != "" {
		f, err := zone.snowflake(*pattern, layout)
		if err != nil {
			return err
		}
		format = f.Format
		// Every Snowflake pattern prints the ID's time (NewSnowflake
		// refuses one without its date and time fields), which borrowing
		// would date in the future.
		if setFlag(fs, "max-ahead") == "" {
			mf.maxAhead = serialMaxAhead
		}
	}
	if *key != "" {
		if k, err = strconv.ParseInt(*key, 10, 64); err != nil {
			return fmt.Errorf("%w: -key %q is not a 64-bit integer", ErrUsage, *key)
		}
		if layout.Bits().Spec().GeneBits == 0 {
			return fmt.Errorf("%w: -key needs -gene-bits: the key goes in the gene bits", ErrUsage)
		}
	}
	if *n == 0 {
		return nil // nothing to print, so no worker ID taken, and no row or lease spent
	}

	g, err := mf.open(*generator)
	if err != nil {
		return err
	}
	defer g.close()

	next := g.next
	if *key != "" {
		next = func() (int64, error) { return g.nextFor(k) }
	}
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	for range *n {
		uid, err := next()
		if err != nil {
			out.Flush()
			return err
		}
		if *asJSON {
			if err := enc.Encode(g.parse(uid)); err != nil {
				return err
			}
			continue
		}
		out.WriteString(format(uid))
		out.WriteByte('\n')
	}
	return out.Flush()
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
