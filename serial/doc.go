// Package serial writes IDs as the serial numbers people hand out: text
// from a pattern such as "ORD-{yyyy}{MM}{dd}-{seq:6}". A pattern is
// literal text and fields: {yyyy} {yy} {MM} {dd} {HH} {mm} {ss} {SSS}, a
// time in a zone; {worker:N} and {seq:N}, numbers zero-padded to N digits;
// {{ and }} for braces. Every string of a pattern has its width.
//
// Snowflake writes a generator's int64 IDs: its fields are the ID's own, so
// the strings are unique, fixed width, sort as the IDs, and read back to
// them. It only formats; the IDs come from cached:
//
//	l, _ := uidgen.NamedLayout("twitter")
//	f, err := serial.NewSnowflake("001{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}", l, time.UTC)
//	s := f.Format(id)    // "0012026112708300012300070005"
//	id, err = f.Parse(s)
//
// NewSnowflake refuses, naming what is missing, a pattern that cannot hold
// every ID of its layout, so Format is a bijection onto its strings and
// Parse its inverse.
//
// Segment hands out numbers that restart each period, from segment tags:
//
//	g, err := serial.NewSegment(ctx, serial.SegmentConfig{
//		Segment: segment.Config{DB: db, Tag: "order"},
//		Pattern: "ORD-{yyyy}{MM}{dd}-{seq:6}",
//		Location: zone,
//	})
//	defer g.Close()
//	s, err := g.Next(ctx) // "ORD-20261127-000001", "ORD-20261127-000002", ...
//
// The pattern's finest date field names the period (a day here; an hour at
// finest); each period's numbers are those of the tag Tag + ":" + its date,
// with segment's promises: unique across restarts and a fleet, and 1, 2,
// 3, ... without a gap in one process. No number of a period is taken
// after the period ends, by the clock of the process that takes it: the
// argument is in the repository's docs/design.md#serial-periods, and what
// the fleet's clocks, zones and old rows need, in docs/serial.md.
package serial
