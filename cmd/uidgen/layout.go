package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/worker"
)

// layoutFlags are the flags every command that makes or reads IDs shares:
// the bit layout and the epoch. Their defaults are the library's.
type layoutFlags struct {
	timeBits, workerBits, seqBits int
	epoch                         string
}

func (l *layoutFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&l.timeBits, "time-bits", defaultgen.DefaultTimeBits, "bits of delta seconds")
	fs.IntVar(&l.workerBits, "worker-bits", defaultgen.DefaultWorkerBits, "bits of worker ID")
	fs.IntVar(&l.seqBits, "seq-bits", defaultgen.DefaultSeqBits, "bits of sequence within a second")
	fs.StringVar(&l.epoch, "epoch", defaultgen.DefaultEpoch.Format(time.DateOnly),
		"epoch, as YYYY-MM-DD (midnight UTC) or RFC 3339")
}

// config returns the generator config the flags describe, with assigner.
func (l *layoutFlags) config(assigner worker.Assigner) (defaultgen.Config, error) {
	epoch, err := parseEpoch(l.epoch)
	if err != nil {
		return defaultgen.Config{}, err
	}
	return defaultgen.Config{
		TimeBits: l.timeBits, WorkerBits: l.workerBits, SeqBits: l.seqBits,
		Epoch: epoch, Assigner: assigner,
	}, nil
}

// scheme returns the scheme the flags describe, for reading IDs: the worker
// ID plays no part in parsing, so a static 0 stands in for it.
func (l *layoutFlags) scheme() (*defaultgen.Scheme, error) {
	cfg, err := l.config(worker.Static(0))
	if err != nil {
		return nil, err
	}
	return cfg.Scheme(context.Background())
}

func parseEpoch(s string) (time.Time, error) {
	for _, layout := range []string{time.DateOnly, time.RFC3339} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: -epoch %q is neither YYYY-MM-DD nor RFC 3339", errUsage, s)
}
