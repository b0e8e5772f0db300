package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	mathbits "math/bits"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cmd/uidgen/internal/human"
	"github.com/seed4d941b13/uidgen/internal/defaults"
	"github.com/seed4d941b13/uidgen/internal/leasing"
)

// secondsPerYear is a Julian year, 365.25 days.
const secondsPerYear = 365.25 * 24 * 60 * 60

// lastDate is the last instant plan prints as a date: past it a layout
// lasts "beyond year 9999".
var lastDate = time.Date(9999, time.December, 31, 23, 59, 59, 0, time.UTC)

// positiveBits are the bits of a positive int64, below its sign: a layout
// whose widths add up to fewer keeps its IDs below 2^(their sum).
const positiveBits = 63

// layoutPlan is the arithmetic behind Baidu's README tips for one layout:
// how long its time bits last at the wall clock's pace and at a load
// through the cached generator, and how many restarts its worker bits
// allow. Its JSON form is `uidgen plan -json`: fields are only ever added.
type layoutPlan struct {
	// GeneBits and UsedBits are the gene field's width and the bits below
	// the always-zero ones: every ID is below 2^UsedBits, exact as a
	// JavaScript number when UsedBits is 53 or less.
	GeneBits int `json:"geneBits"`
	UsedBits int `json:"usedBits"`

	TimeBits   int `json:"timeBits"`
	WorkerBits int `json:"workerBits"`
	SeqBits    int `json:"seqBits"`
	// Layout describes the widths in their order from the top bit, and
	// the tick where it is not a second.
	Layout string    `json:"layout"`
	Epoch  time.Time `json:"epoch"`
	From   time.Time `json:"from"` // the instant the years left count from

	// IDsPerSecond is how many IDs one worker makes in one second of ID
	// time: 2^SeqBits, times the ticks in a second.
	IDsPerSecond int64 `json:"idsPerSecond"`
	// TimeSpanYears is what the time bits hold: 2^TimeBits ticks (less
	// the top bit's half in a layout with no sign bit).
	TimeSpanYears float64 `json:"timeSpanYears"`
	// RunsOut is the instant the time bits run out at the wall clock's
	// pace: Epoch + 2^TimeBits s. Null past year 9999.
	RunsOut *time.Time `json:"runsOut"`
	// YearsLeft is the years from From to RunsOut; negative once run out.
	YearsLeft float64 `json:"yearsLeft"`

	// QPS is the load planned for, in IDs per second through one cached
	// generator.
	QPS float64 `json:"qps"`
	// BorrowRate is the seconds of ID time the cached generator uses per
	// second of the clock at QPS: max(1, QPS / IDsPerSecond). Above 1 it
	// borrows future seconds.
	BorrowRate float64 `json:"borrowRate"`
	// CachedRunsOut is the instant the time bits run out for QPS sustained
	// from From on, across restarts on a leased worker ID, which start above
	// the last second used: only a fresh ID, or a run that waits for the
	// clock, starts at the clock again. Null past year 9999.
	CachedRunsOut *time.Time `json:"cachedRunsOut"`
	// CachedYearsLeft is the years from From to CachedRunsOut.
	CachedYearsLeft float64 `json:"cachedYearsLeft"`

	// WorkerIDs is how many process starts the worker bits allow: each
	// start takes a fresh AUTO_INCREMENT ID from 1 to 2^WorkerBits-1.
	WorkerIDs int64 `json:"workerIds"`
	// RestartsPerDay is the fleet's process starts per day planned for.
	RestartsPerDay float64 `json:"restartsPerDay"`
	// RestartYears is how long WorkerIDs last at RestartsPerDay. Null
	// when RestartsPerDay is 0.
	RestartYears *float64 `json:"restartYears"`

	// PeakWorkers is the most processes alive at once planned for, with
	// leased worker IDs (-lease), which come back: they fit when
	// PeakWorkers <= WorkerIDs, however often the processes restart. 0
	// when not given.
	// tick and spanBits are the layout's tick and the bits of its time
	// field's span, for print.
	tick     time.Duration
	spanBits int

	PeakWorkers int64 `json:"peakWorkers"`
	// CrashesPerHour is the fleet's crashes an hour planned for, and
	// ReservedByCrashes the leased IDs they keep reserved at once: a
	// crashed holder's ID stays reserved up to LeaseHorizonSeconds ahead,
	// and new holders take other IDs meanwhile. The leased IDs needed are
	// PeakWorkers + ReservedByCrashes.
	CrashesPerHour      float64 `json:"crashesPerHour"`
	LeaseHorizonSeconds float64 `json:"leaseHorizonSeconds"`
	ReservedByCrashes   int64   `json:"reservedByCrashes"`
}

// planFlags are plan's flags.
type planFlags struct {
	fs       *flag.FlagSet
	layout   layoutFlags
	qps      float64
	restarts float64
	peak     int64
	crashes  float64
	horizon  time.Duration
	fit      bool
	lifetime float64 // -years'
	maxBits  int
	from     string
	asJSON   bool
}

func runPlan(args []string, stdout, stderr io.Writer, _ leaseStore) error {
	var f planFlags
	f.register(newFlagSet("plan",
		"plan [-layout NAME | -time-bits T -worker-bits W -seq-bits S | -fit -years Y [-max-bits B]] [-gene-bits G] [-epoch DATE] [-qps Q] [-restarts-per-day R] [-peak-workers N [-crashes-per-hour C] [-lease-horizon D]] [-from DATE] [-json]",
		"uidgen plan -time-bits 29 -worker-bits 21 -seq-bits 13 -epoch 2026-01-01 -qps 100000 -restarts-per-day 500",
		stderr))
	if err := parseFlags(f.fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	start, err := f.start()
	if err != nil {
		return err
	}
	p, err := f.plan(start)
	if err != nil {
		return err
	}
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	return p.print(stdout)
}

func (f *planFlags) register(fs *flag.FlagSet) {
	f.fs = fs
	f.layout.register(fs)
	fs.Float64Var(&f.qps, "qps", 0, "IDs per second through one cached generator to plan for")
	fs.Float64Var(&f.restarts, "restarts-per-day", 0, "process starts a day across the whole fleet (each takes a worker ID)")
	fs.Int64Var(&f.peak, "peak-workers", 0, "most processes alive at once, with leased worker IDs (-lease), which come back")
	fs.Float64Var(&f.crashes, "crashes-per-hour", 0, "with -peak-workers: processes that die an hour without releasing their leased ID,\nwhich stays reserved up to -lease-horizon ahead while others take new IDs")
	fs.DurationVar(&f.horizon, "lease-horizon", leasing.DefaultHorizon, "with -crashes-per-hour: the fleet's lease horizon (-lease-horizon of gen and serve)")
	fs.BoolVar(&f.fit, "fit", false, "plan the layout with the most sequence bits whose worker bits hold -peak-workers\nand whose time bits last -years from the epoch")
	fs.Float64Var(&f.lifetime, "years", 0, "with -fit: how many years from the epoch the layout must last")
	fs.IntVar(&f.maxBits, "max-bits", 63, "with -fit: bits the IDs may use below the sign; 53 keeps every ID exact as a JavaScript number")
	fs.StringVar(&f.from, "from", "", "date to count years left from, as YYYY-MM-DD or RFC 3339 (default now)")
	fs.BoolVar(&f.asJSON, "json", false, "print the plan as one JSON object")
}

// check refuses arguments, rates that are not numbers of 0 or more, a
// lease horizon out of range, and -fit with the bits it would choose.
func (f *planFlags) check() error {
	if f.fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, f.fs.Arg(0))
	}
	for _, r := range []struct {
		name string
		v    float64
	}{{"qps", f.qps}, {"restarts-per-day", f.restarts}, {"crashes-per-hour", f.crashes}} {
		if r.v < 0 || math.IsInf(r.v, 0) || math.IsNaN(r.v) {
			return fmt.Errorf("%w: -%s %v: must be 0 or more", ErrUsage, r.name, r.v)
		}
	}
	if f.peak < 0 {
		return fmt.Errorf("%w: -peak-workers %d: must be 0 or more", ErrUsage, f.peak)
	}
	if f.horizon < leasing.MinHorizon || f.horizon > leasing.MaxHorizon {
		return fmt.Errorf("%w: -lease-horizon %s: want %s to %s", ErrUsage,
			defaults.Duration(f.horizon), defaults.Duration(leasing.MinHorizon), defaults.Duration(leasing.MaxHorizon))
	}
	if f.fit && f.layout.name != "" {
		return fmt.Errorf("%w: -fit chooses the bits, -layout %s has its own: give one or the other", ErrUsage, f.layout.name)
	}
	if f.fit && setFlag(f.fs, "time-bits", "worker-bits", "seq-bits") != "" {
		return fmt.Errorf("%w: -fit chooses the bits: give -peak-workers and -years, not -time-bits, -worker-bits or -seq-bits", ErrUsage)
	}
	return nil
}

// start returns the instant the years left count from: -from's, else
// now, in whole seconds.
func (f *planFlags) start() (time.Time, error) {
	if f.from == "" {
		return time.Now().Truncate(time.Second), nil
	}
	start, err := parseEpoch(f.from)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: -from %q is neither YYYY-MM-DD nor RFC 3339", ErrUsage, f.from)
	}
	return start, nil
}

// plan returns the plan of the layout the flags give, or with -fit
// choose, counting from start.
func (f *planFlags) plan(start time.Time) (layoutPlan, error) {
	// Crashes at a steady rate keep rate × horizon IDs reserved at once.
	reserved := int64(math.Ceil(f.crashes * f.horizon.Hours()))
	if f.fit {
		var err error
		if f.layout.timeBits, f.layout.workerBits, f.layout.seqBits, err = fitLayout(f.peak+reserved, f.lifetime, f.layout.geneBits, f.maxBits); err != nil {
			return layoutPlan{}, err
		}
	}
	l, err := f.layout.layout()
	if err != nil {
		return layoutPlan{}, err
	}
	p := makePlan(l, start, f.qps, f.restarts)
	p.PeakWorkers, p.CrashesPerHour, p.LeaseHorizonSeconds, p.ReservedByCrashes = f.peak, f.crashes, f.horizon.Seconds(), reserved
	return p, nil
}

// fitLayout returns the widths with the most sequence bits whose worker bits
// hold peak live processes (leased IDs 1..peak), whose time bits last years
// from the epoch, and which with geneBits use at most maxBits bits.
func fitLayout(peak int64, years float64, geneBits, maxBits int) (timeBits, workerBits, seqBits int, err error) {
	if peak < 1 || !(years > 0) || math.IsInf(years, 0) {
		return 0, 0, 0, fmt.Errorf("%w: -fit needs -peak-workers 1 or more and -years above 0, not %d and %v", ErrUsage, peak, years)
	}
	if maxBits < 3 || maxBits > positiveBits {
		return 0, 0, 0, fmt.Errorf("%w: -max-bits %d: want 3 to %d", ErrUsage, maxBits, positiveBits)
	}
	workerBits = mathbits.Len64(uint64(peak))
	timeBits = max(1, int(math.Ceil(math.Log2(years*secondsPerYear))))
	seqBits = maxBits - timeBits - workerBits - geneBits
	if seqBits < 1 {
		return 0, 0, 0, fmt.Errorf("%w: -fit: %d peak workers need %d worker bits, %v years %d time bits, and %d gene bits, which leave no sequence bit of %d",
			ErrUsage, peak, workerBits, years, timeBits, geneBits, maxBits)
	}
	return timeBits, workerBits, seqBits, nil
}

// makePlan does the arithmetic for layout, counting from the instant from,
// at qps IDs/s and restarts process starts a day.
func makePlan(layout uidgen.Layout, from time.Time, qps, restarts float64) layoutPlan {
	alloc, perSecond := layout.Bits(), int64(time.Second/layout.Tick())
	span := (float64(alloc.MaxDelta()) + 1) / float64(perSecond) // seconds
	spec := alloc.Spec()
	p := layoutPlan{
		GeneBits: spec.GeneBits, UsedBits: spec.TimeBits + spec.WorkerBits + spec.SeqBits + spec.GeneBits,
		TimeBits: spec.TimeBits, WorkerBits: spec.WorkerBits, SeqBits: spec.SeqBits,
		Layout: describe(layout), Epoch: layout.Epoch().UTC(), From: from.UTC(),
		tick: layout.Tick(), spanBits: mathbits.Len64(uint64(alloc.MaxDelta())),
		IDsPerSecond:   (alloc.MaxSequence() + 1) * perSecond,
		TimeSpanYears:  round2(span / secondsPerYear),
		QPS:            qps,
		WorkerIDs:      alloc.MaxWorkerID(),
		RestartsPerDay: restarts,
	}
	p.planTime(layout, from, span)
	if restarts > 0 {
		years := round2(float64(p.WorkerIDs) / restarts / 365.25)
		p.RestartYears = &years
	}
	return p
}

// describe returns layout's widths in their order from the top bit, and
// its tick where it is not a second.
func describe(layout uidgen.Layout) string {
	desc := layout.Bits().String()
	if layout.Tick() != time.Second {
		desc += fmt.Sprintf(" in %v ticks", layout.Tick())
	}
	return desc
}

// planTime sets when layout's time bits, which hold span seconds, run out
// counting from the instant from: at the clock's pace, and at p.QPS
// through the cached generator.
func (p *layoutPlan) planTime(layout uidgen.Layout, from time.Time, span float64) {
	epoch := layout.Epoch()
	// Seconds of ID time already spent at from; none before the epoch.
	used := max(from.Sub(epoch).Seconds(), 0)
	left := span - used
	if end := layout.RunsOut().UTC(); !end.After(lastDate) {
		p.RunsOut = &end
	}
	p.YearsLeft = round2(left / secondsPerYear)

	// The cached generator's padder takes max(last+1, now) as its next
	// second, so under a load above IDsPerSecond its seconds run ahead of
	// the clock at QPS/IDsPerSecond; below it they follow the clock.
	p.BorrowRate = round2(max(1, p.QPS/float64(p.IDsPerSecond)))
	cachedLeft := left / max(1, p.QPS/float64(p.IDsPerSecond))
	if left <= 0 {
		cachedLeft = left
	}
	p.CachedRunsOut = instant(maxTime(from, epoch), cachedLeft)
	p.CachedYearsLeft = round2(cachedLeft / secondsPerYear)
}

// print writes p for a person: aligned, with the reasoning in words.
func (p *layoutPlan) print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p.printBits(tw)
	p.printTimeLeft(tw)
	p.printWorkerIDs(tw)
	return tw.Flush()
}

// printBits writes the layout, what its bits hold and how long its time
// bits last.
func (p *layoutPlan) printBits(tw io.Writer) {
	fmt.Fprintf(tw, "layout\t%s from %s\n", p.Layout, p.Epoch.Format("2006-01-02 15:04:05.999 MST"))
	switch {
	case p.UsedBits <= 53:
		fmt.Fprintf(tw, "  %d bits\tevery ID is below 2^%d: exact as a JavaScript number\n", p.UsedBits, p.UsedBits)
	case p.UsedBits < positiveBits:
		fmt.Fprintf(tw, "  %d bits\tevery ID is below 2^%d; above 2^53 a JavaScript number rounds it\n", p.UsedBits, p.UsedBits)
	}
	if p.GeneBits > 0 {
		fmt.Fprintf(tw, "  gene\tNextIDFor(key) puts key %% %s in the low bits: the key's shard of %s\n", human.Group(1<<p.GeneBits), human.Group(1<<p.GeneBits))
	}
	tick, unit := fmt.Sprintf("2^%d", p.SeqBits), "s"
	if p.tick != time.Second {
		tick, unit = fmt.Sprintf("2^%d a tick of %v", p.SeqBits, p.tick), "ticks of "+p.tick.String()
	}
	fmt.Fprintf(tw, "IDs per second\t%s per worker in each second of ID time (%s)\n", human.Group(p.IDsPerSecond), tick)
	fmt.Fprintf(tw, "time bits\t2^%d %s = %s years, run out %s\n", p.spanBits, unit, years(p.TimeSpanYears), date(p.RunsOut))
}

// printTimeLeft writes the years left after From, at the clock's pace and
// under load.
func (p *layoutPlan) printTimeLeft(tw io.Writer) {
	day := p.From.Format(time.DateOnly)
	perSecond := human.Group(p.IDsPerSecond)
	if p.YearsLeft <= 0 {
		fmt.Fprintf(tw, "  at %s\talready run out: no IDs can be made with this layout and epoch\n", day)
		return
	}
	fmt.Fprintf(tw, "  at the clock's pace\t%s years left after %s\n", years(p.YearsLeft), day)
	load := human.Group(int64(p.QPS))
	switch {
	case p.QPS == 0:
		fmt.Fprintf(tw, "  under load\tgive -qps: past %s IDs/s the cached generator borrows future seconds\n", perSecond)
	case p.BorrowRate <= 1:
		fmt.Fprintf(tw, "  at %s IDs/s\tno borrowing: the load fits in %s IDs a second\n", load, perSecond)
	default:
		fmt.Fprintf(tw, "  at %s IDs/s\tthe cached generator uses %v s of ID time a second: run out %s, %s years after %s\n",
			load, p.BorrowRate, date(p.CachedRunsOut), years(p.CachedYearsLeft), day)
		fmt.Fprintf(tw, "\tthat holds across restarts on a leased worker ID, which start above the last second used:"+
			" only a fresh ID, or a run that waits for the clock, starts at the clock again\n")
		fmt.Fprintf(tw, "\tdefaultgen makes at most %s IDs/s per process; its callers wait for the next tick\n", perSecond)
	}
}

// printWorkerIDs writes how long the worker IDs last as fresh IDs, and
// whether they hold the processes alive at once as leased ones.
func (p *layoutPlan) printWorkerIDs(tw io.Writer) {
	fmt.Fprintf(tw, "worker IDs\t%s process starts (2^%d-1), each taking a fresh ID\n", human.Group(p.WorkerIDs), p.WorkerBits)
	if p.RestartYears == nil {
		fmt.Fprintf(tw, "  restarts\tgive -restarts-per-day for how many years they last\n")
	} else {
		fmt.Fprintf(tw, "  at %v starts a day\tthey last %s years\n", p.RestartsPerDay, years(*p.RestartYears))
	}
	need := p.PeakWorkers + p.ReservedByCrashes
	alive := human.Group(p.PeakWorkers) + " processes alive at once"
	if p.ReservedByCrashes > 0 {
		alive += fmt.Sprintf(" and %s that crashes keep reserved (%v an hour, each for a %v horizon)",
			plural(p.ReservedByCrashes, "ID", "IDs"), p.CrashesPerHour, time.Duration(p.LeaseHorizonSeconds*float64(time.Second)))
	}
	switch {
	case p.PeakWorkers == 0:
		fmt.Fprintf(tw, "  leased IDs\tgive -peak-workers: IDs leased with -lease come back, so they need only count processes alive at once\n")
	case need <= p.WorkerIDs:
		fmt.Fprintf(tw, "  leased IDs\t%s fit, however often they restart (-lease)\n", alive)
	default:
		fmt.Fprintf(tw, "  leased IDs\t%s need %d worker bits (-lease)\n", alive, mathbits.Len64(uint64(need)))
	}
}

// instant returns t plus seconds, or nil past year 9999. It counts in
// whole seconds, since a time.Duration holds only 292 years.
func instant(t time.Time, seconds float64) *time.Time {
	if float64(t.Unix())+seconds > float64(lastDate.Unix()) {
		return nil
	}
	at := time.Unix(t.Unix()+int64(math.Floor(seconds)), 0).UTC()
	return &at
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// date formats an instant from instant for a person.
func date(t *time.Time) string {
	if t == nil {
		return "beyond year 9999"
	}
	return t.Format(time.DateTime + " MST")
}

// years formats a number of years for a person: one decimal, or two below
// one year.
func years(y float64) string {
	if math.Abs(y) < 1 {
		return strconv.FormatFloat(y, 'f', 2, 64)
	}
	return strconv.FormatFloat(y, 'f', 1, 64)
}

// plural returns n, grouped, and the noun that agrees with it: "1 ID",
// "2 IDs".
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return human.Group(n) + " " + many
}
