package serial

import (
	"fmt"
	"strings"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// fit checks that a pattern can hold every ID of a layout, in a zone, for
// NewSnowflake, and keeps what its checks find for NewSnowflake to build
// with. Each check method fills the fields it names, from those of the
// checks before it.
type fit struct {
	p   *pattern
	l   uidgen.Layout // not the zero Layout
	loc *time.Location

	times   []field // by checkTimes: the time fields, coarsest first
	numbers []field // by checkOrder: times, then worker and seq in the ID's order
	offset  int     // by checkZone: loc's one offset from UTC, in seconds
}

// checks returns f's checks in the order NewSnowflake runs them, so that
// a pattern with many faults is refused for the same one each time.
func (f *fit) checks() []func() error {
	return []func() error{f.checkGenes, f.checkNumbers, f.checkTimes, f.checkOrder, f.checkZone, f.checkYears}
}

// errorf returns an error wrapping uidgen.ErrConfig that says the pattern
// does not fit the layout, and why.
func (f *fit) errorf(format string, args ...any) error {
	return fmt.Errorf("serial: %w: pattern %q does not fit layout %v: %s", uidgen.ErrConfig, f.p.src, f.l, fmt.Sprintf(format, args...))
}

// checkGenes refuses gene bits, which no field holds.
func (f *fit) checkGenes() error {
	if g := f.l.Bits().Spec().GeneBits; g > 0 {
		return f.errorf("its %d gene bits have no field", g)
	}
	return nil
}

// checkNumbers refuses a missing {worker:N} or {seq:N}, or one with too
// few digits for the layout's largest.
func (f *fit) checkNumbers() error {
	a := f.l.Bits()
	for _, n := range []struct {
		k     kind
		label string
		max   int64
	}{{worker, "worker", a.MaxWorkerID()}, {seq, "seq", a.MaxSequence()}} {
		want := len(fmt.Sprint(n.max))
		nf, ok := f.p.field(n.k)
		if !ok {
			return f.errorf("no {%s:N}: its %s field goes to %d, which needs {%s:%d}", n.label, n.label, n.max, n.label, want)
		}
		if nf.width < want {
			return f.errorf("%s has too few digits: its %s field goes to %d, which needs {%s:%d}", nf.name, n.label, n.max, n.label, want)
		}
	}
	return nil
}

// checkTimes refuses {yy}, a time field missing from {yyyy} down to the
// finest the layout's times need, and a tick that is not a whole number
// of that field's unit; it keeps the time fields in f.times.
func (f *fit) checkTimes() error {
	if _, ok := f.p.field(year2); ok {
		return f.errorf("{yy} cannot read back to a year: use {yyyy}")
	}
	finest, unit := f.finest()
	for k := year4; k <= finest; k++ {
		tf, ok := f.p.field(k)
		if k == year2 {
			continue
		}
		if !ok {
			return f.errorf("no %s: its times need %s", fieldName(k), timeChain(finest))
		}
		f.times = append(f.times, tf)
	}
	if f.l.Tick()%unit != 0 {
		return f.errorf("its tick, %v, is not a whole number of %s's unit, %v", f.l.Tick(), fieldName(finest), unit)
	}
	return nil
}

// finest returns the finest time field the pattern needs, and its unit:
// {ss} for whole-second ticks from a whole-second epoch, {SSS} otherwise
// or where the pattern has it.
func (f *fit) finest() (kind, time.Duration) {
	_, ms := f.p.field(milli)
	if ms || f.l.Tick()%time.Second != 0 || f.l.Epoch().Nanosecond() != 0 {
		return milli, time.Millisecond
	}
	return second, time.Second
}

// checkOrder refuses fields out of the ID's order, for the strings would
// not sort as the IDs; it keeps that order in f.numbers.
func (f *fit) checkOrder() error {
	w, _ := f.p.field(worker)
	q, _ := f.p.field(seq)
	f.numbers = append([]field(nil), f.times...)
	if f.l.Bits().Spec().SeqAboveWorker {
		f.numbers = append(f.numbers, q, w)
	} else {
		f.numbers = append(f.numbers, w, q)
	}
	var got, want strings.Builder
	for _, pf := range f.p.fields {
		if pf.k != literal {
			got.WriteString(pf.name)
		}
	}
	for _, nf := range f.numbers {
		want.WriteString(nf.name)
	}
	if got.String() != want.String() {
		return f.errorf("its fields are in the order %s: want %s, the order of the ID's bits, so that the strings sort as the IDs", got.String(), want.String())
	}
	return nil
}

// checkZone refuses a zone whose offset changes within the layout's
// times; it keeps the one offset in f.offset.
func (f *fit) checkZone() error {
	var err error
	if f.offset, err = fixedOffset(f.loc, f.l.Epoch(), f.l.RunsOut()); err != nil {
		return fmt.Errorf("serial: %w: pattern %q, layout %v: zone %v changes its offset: %v", uidgen.ErrConfig, f.p.src, f.l, f.loc, err)
	}
	return nil
}

// checkYears refuses a layout whose years, in the zone, reach outside 0
// to 9999, which {yyyy} cannot hold.
func (f *fit) checkYears() error {
	for _, t := range []time.Time{f.l.Epoch(), f.l.RunsOut()} {
		if y := t.In(f.loc).Year(); y < 0 || y > 9999 {
			return f.errorf("its IDs reach the year %d, which {yyyy} cannot hold", y)
		}
	}
	return nil
}
