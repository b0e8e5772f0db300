package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/defaultgen"
)

// layoutFlags are the flags every command that makes or reads IDs shares:
// the bit layout and the epoch. Their defaults are the library's.
type layoutFlags struct {
	timeBits, workerBits, seqBits, geneBits int
	epoch                                   string
}

func (l *layoutFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&l.timeBits, "time-bits", uidgen.DefaultTimeBits, "bits of delta seconds")
	fs.IntVar(&l.workerBits, "worker-bits", uidgen.DefaultWorkerBits, "bits of worker ID")
	fs.IntVar(&l.seqBits, "seq-bits", uidgen.DefaultSeqBits, "bits of sequence within a second")
	fs.IntVar(&l.geneBits, "gene-bits", 0, "bits of gene below the sequence, copied from a shard key (0: Baidu's layout)")
	fs.StringVar(&l.epoch, "epoch", uidgen.DefaultEpoch.Format(time.DateOnly),
		"epoch, as YYYY-MM-DD (midnight UTC) or RFC 3339")
}

// config returns the generator config the flags describe, with the worker
// ID from src: the fields both generators' Configs share.
func (l *layoutFlags) config(src idSource) (defaultgen.Config, error) {
	epoch, err := parseEpoch(l.epoch)
	if err != nil {
		return defaultgen.Config{}, err
	}
	return defaultgen.Config{
		TimeBits: l.timeBits, WorkerBits: l.workerBits, SeqBits: l.seqBits, GeneBits: l.geneBits,
		Epoch: epoch, Assigner: src.assigner, Leaser: src.leaser,
	}, nil
}

// layout returns the layout the flags describe, for reading IDs: no clock,
// no worker ID, so expired layouts read as well as current ones.
func (l *layoutFlags) layout() (uidgen.Layout, error) {
	epoch, err := parseEpoch(l.epoch)
	if err != nil {
		return uidgen.Layout{}, err
	}
	layout, err := uidgen.NewGeneLayout(l.timeBits, l.workerBits, l.seqBits, l.geneBits, epoch)
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
