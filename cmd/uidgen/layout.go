package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/bits"
	"github.com/seed4d941b13/uidgen/cached"
)

// layoutFlags are the flags every command that makes or reads IDs shares:
// a named layout, or the bit layout and the epoch. Their defaults are the
// library's.
type layoutFlags struct {
	fs                                      *flag.FlagSet
	name                                    string
	timeBits, workerBits, seqBits, geneBits int
	epoch                                   string
}

func (l *layoutFlags) register(fs *flag.FlagSet) {
	l.fs = fs
	d := uidgen.DefaultLayout()
	s := d.Bits().Spec()
	fs.StringVar(&l.name, "layout", "", "a named layout in place of the layout flags below\n(uidgen layouts lists them: twitter, bwmarrin, sonyflake, discord, ...)")
	fs.IntVar(&l.timeBits, "time-bits", s.TimeBits, "bits of delta seconds")
	fs.IntVar(&l.workerBits, "worker-bits", s.WorkerBits, "bits of worker ID")
	fs.IntVar(&l.seqBits, "seq-bits", s.SeqBits, "bits of sequence within a second")
	fs.IntVar(&l.geneBits, "gene-bits", 0, "bits of gene below the sequence, copied from a shard key (0: Baidu's layout)")
	fs.StringVar(&l.epoch, "epoch", d.Epoch().Format(time.DateOnly),
		"epoch, as YYYY-MM-DD (midnight UTC) or RFC 3339")
}

// config returns the generator config the flags describe, with the worker
// ID from src: the fields both generators' Configs share.
func (l *layoutFlags) config(src idSource) (cached.Config, error) {
	layout, err := l.layout()
	if err != nil {
		return cached.Config{}, err
	}
	return cached.Config{Layout: layout, Assigner: src.assigner, Leaser: src.leaser}, nil
}

// layout returns the layout the flags describe, for reading IDs: no clock,
// no worker ID, so expired layouts read as well as current ones. A name
// and a layout flag together are a usage error naming both.
func (l *layoutFlags) layout() (uidgen.Layout, error) {
	if l.name != "" {
		if set := setFlag(l.fs, "time-bits", "worker-bits", "seq-bits", "gene-bits", "epoch"); set != "" {
			return uidgen.Layout{}, fmt.Errorf("%w: -layout %s and -%s: the named layout has its own; give one or the other", ErrUsage, l.name, set)
		}
		layout, err := uidgen.NamedLayout(l.name)
		if err != nil {
			return uidgen.Layout{}, callerError{err}
		}
		return layout, nil
	}
	epoch, err := parseEpoch(l.epoch)
	if err != nil {
		return uidgen.Layout{}, err
	}
	s := bits.Spec{TimeBits: l.timeBits, WorkerBits: l.workerBits, SeqBits: l.seqBits, GeneBits: l.geneBits}
	layout, err := uidgen.NewLayout(s, time.Second, epoch)
	if err != nil {
		return uidgen.Layout{}, callerError{err}
	}
	return layout, nil
}

func parseEpoch(s string) (time.Time, error) {
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: -epoch %q is neither YYYY-MM-DD nor RFC 3339", ErrUsage, s)
}
