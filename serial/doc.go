// Package serial writes IDs as the serial numbers people hand out: text
// from a pattern such as "ORD-{yyyy}{MM}{dd}-{seq:6}". A pattern is
// literal text and fields: {yyyy} {yy} {MM} {dd} {HH} {mm} {ss} {SSS}, a
// time in a zone; {worker:N} and {seq:N}, numbers zero-padded to N digits;
// {{ and }} for braces. Every string of a pattern has its width.
//
// A pattern's numbers come from one of two sources, each a type:
//
// Snowflake writes a generator's int64 IDs (the scheme of "payment and
// order numbers" that carries time, machine and sequence): its fields are
// the ID's own, so the strings are unique, fixed width, sort as the IDs,
// and read back to them. It only formats; the IDs come from cached:
//
//	l, _ := uidgen.NamedLayout("twitter")
//	f, err := serial.NewSnowflake("001{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}", l, time.UTC)
//	s := f.Format(id)    // "0012026112708300012300070005"
//	id, err = f.Parse(s)
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
// Two types, not one with two constructors: one formats values it is given
// and cannot fail after NewSnowflake; the other owns database state and
// goroutines, fails as a database does, and must be closed. Snowflake takes
// its three inputs as arguments, as uidgen.NewLayout does, for none has
// a default but the zone; Segment takes a segment.Config as it is, so that
// its tag table, ranges and logger are configured as segment's are.
//
// # Segment's periods
//
// The pattern's finest date field names the period: {yyyy}{MM}{dd} a day,
// {yyyy}{MM} a month, {yyyy} a year, {HH} an hour (finer is refused), no
// date field none. Each period's numbers are those of the tag
// Segment.Tag + ":" + its date ("order:20261127"), which Next creates at
// the period's first take, at 1: so within a period they are segment's
// numbers, with segment's promises. Unique, across restarts and a fleet. In
// one process, 1, 2, 3, ... without a gap, through clean restarts (Close
// gives back what the process held). Across a fleet, each process hands
// out ranges of its own, so the strings of one period are not in order
// across processes, and a period that ends while several processes hold
// ranges leaves their unused numbers below the tag's max_id: given back,
// on record in the tag's returned table, and never handed out, for the
// period is over. A crash loses what the process held, as in segment.
//
// The guarantee at a period's end: no number of a period is taken after
// the period ends, by the clock of the process that takes it. Next holds a
// mutex, reads the clock, takes a number from the period's ring, and reads
// the clock again: only if the second reading is still in the period does
// it hand the number out, so the take happened before the period ended.
// Otherwise it drops the number (neither handed out nor given back: one
// number per process per period end) and takes one from the next period's
// tag. Because the mutex orders a process's takes with its clock reads,
// every number the process handed out in the period is below the one it
// dropped, so its numbers of a period stay 1..n with no gap in one process.
// (Take the number without the second reading: TestTakeStraddlesMidnight fails, a
// number of day D handed out once the clock says D+1.) The string names
// the period its number was taken in, even if its caller reads it later.
// Across a fleet the bound is each process's clock: a clock a second slow
// hands out day D's numbers for a second into D+1, after a faster one
// started D+1's; keep the clocks in step (NTP), and every process in the
// same Location. A clock stepped back keeps the latest period.
//
// Tags accumulate, a row per period. Delete a period's rows only well after
// the period ends (a week for a daily pattern): a process whose clock lags
// still takes from the row, and a row deleted and made again repeats
// numbers.
//
// # Snowflake's strings
//
// NewSnowflake refuses, at construction and naming what is missing, a
// pattern that cannot hold every ID of its layout: digits too few for the
// largest worker ID or sequence; time fields from {yyyy} down to the
// finest the layout's ticks need ({ss}, or {SSS} for ticks under a second);
// fields out of the order of the ID's bits (which is what makes the
// strings sort as the IDs: equal literals at equal places, and each number
// of fixed width); gene bits, which no field holds; a zone whose offset
// changes within the layout's times. So Format is a bijection from the
// layout's IDs onto its strings, and Parse its inverse.
package serial
