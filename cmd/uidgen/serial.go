package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/ringbuffer"
	"github.com/seed4d941b13/uidgen/segment"
	"github.com/seed4d941b13/uidgen/serial"
)

// patternHelp says what -format and -serial take.
const patternHelp = "literal text and {yyyy} {yy} {MM} {dd} {HH} {mm} {ss} {SSS} {worker:N} {seq:N}, {{ and }} for braces (docs/serial.md)"

// zoneFlag is -tz ZONE, the zone of the serial numbers' dates.
//
// Its default is UTC, package serial's: a default of the local zone made
// the same command write other dates on another machine, and a machine in
// a zone with daylight saving time refuse every Snowflake pattern, whose
// strings would repeat in the hour the clocks go back.
type zoneFlag struct{ name string }

// serialDates is what -tz is the zone of, for gen and serve.
const serialDates = "the serial numbers' dates (default UTC)"

// register adds -tz to fs, the zone of what.
func (z *zoneFlag) register(fs *flag.FlagSet, what string) {
	fs.StringVar(&z.name, "tz", "", "the `ZONE` of "+what+": UTC, Asia/Shanghai, a fixed offset as +08:00, Local, ...")
}

// utcOffset is a fixed offset from UTC as -tz takes it: +08:00, -05:30.
var utcOffset = regexp.MustCompile(`^[+-]([01][0-9]|2[0-3]):[0-5][0-9]$`)

// loc returns the flag's zone, UTC where it is not set.
func (z *zoneFlag) loc() (*time.Location, error) {
	switch {
	case z.name == "":
		return time.UTC, nil
	case utcOffset.MatchString(z.name):
		hours, _ := strconv.Atoi(z.name[1:3])
		minutes, _ := strconv.Atoi(z.name[4:])
		offset := (hours*60 + minutes) * 60
		if z.name[0] == '-' {
			offset = -offset
		}
		return time.FixedZone(z.name, offset), nil
	}
	loc, err := time.LoadLocation(z.name)
	if err != nil {
		return nil, fmt.Errorf("%w: -tz %q is no zone: %v; want a zone's name, as UTC or Asia/Shanghai, or a fixed offset from UTC, as +08:00 or -05:30",
			ErrUsage, z.name, err)
	}
	return loc, nil
}

// snowflake returns the Snowflake of pattern for layout in the flag's
// zone: a pattern that cannot hold the layout's IDs is a usage error.
func (z *zoneFlag) snowflake(pattern string, layout uidgen.Layout) (*serial.Snowflake, error) {
	loc, err := z.loc()
	if err != nil {
		return nil, err
	}
	f, err := serial.NewSnowflake(pattern, layout, loc)
	if err != nil {
		return nil, callerError{err}
	}
	return f, nil
}

// serialConfig returns the config of a Segment serial of pattern on tag,
// in the flag's zone, on the tag table of db.
func (z *zoneFlag) serialConfig(base segment.Config, pattern string) (serial.SegmentConfig, error) {
	loc, err := z.loc()
	return serial.SegmentConfig{Segment: base, Pattern: pattern, Location: loc}, err
}

// newSerial opens a Segment serial, creating the tag table where it is
// missing. A bad pattern or tag is a usage error.
func newSerial(ctx context.Context, cfg serial.SegmentConfig) (*serial.Segment, error) {
	if err := segment.EnsureSchema(ctx, cfg.Segment); err != nil {
		return nil, segmentUsage(err)
	}
	g, err := serial.NewSegment(ctx, cfg)
	return g, segmentUsage(err)
}

// genSerials prints n serial numbers of pattern from the flags' tag, one per
// line.
func genSerials(s *segmentFlags, z *zoneFlag, pattern, dsn string, n int, stdout io.Writer) (err error) {
	if dsn == "" {
		return fmt.Errorf("%w: -segment needs -dsn (or $%s): the tags live in a table", ErrUsage, dsnEnv)
	}
	base := segment.Config{Tag: s.tag, Table: s.table, Start: s.start, Step: s.step, Description: "made by uidgen gen -format",
		RejectedTake: ringbuffer.Wait(segmentWait)}
	s.claims.apply(&base)
	cfg, err := z.serialConfig(base, pattern)
	if err != nil {
		return err
	}
	if cfg.Segment.DB, err = openDB(dsn); err != nil {
		return err
	}
	defer func() { err = errors.Join(err, cfg.Segment.DB.Close()) }()
	ctx, cancel := context.WithTimeout(context.Background(), assignTimeout)
	defer cancel()
	g, err := newSerial(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, g.Close()) }()
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	for range n {
		str, err := g.Next(context.Background())
		if err != nil {
			return err
		}
		out.WriteString(str)
		out.WriteByte('\n')
	}
	return nil
}

// serialSpecs are serve's -serial NAME=PATTERN flags, by name.
type serialSpecs map[string]string

func (s serialSpecs) String() string { return "" }

// Set takes NAME=PATTERN; a name given twice is an error.
func (s serialSpecs) Set(v string) error {
	name, pattern, ok := strings.Cut(v, "=")
	switch {
	case !ok || name == "" || pattern == "":
		return fmt.Errorf("%q: want NAME=PATTERN, as order=ORD-{yyyy}{MM}{dd}-{seq:6}", v)
	case s[name] != "":
		return fmt.Errorf("serial %q given twice", name)
	}
	s[name] = pattern
	return nil
}
