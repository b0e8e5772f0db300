package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

func runGen(args []string, stdout, stderr io.Writer, store leaseStore) error {
	fs := newFlagSet("gen", "gen [-n N] [-json] [-key K] [-generator cached|default] [-worker ID | -dsn DSN [-lease] | -etcd ENDPOINTS [-etcd-prefix P] | -redis URL [-redis-prefix P]] [-lease-ttl D] [-lease-horizon D] [-worker-ids LO-HI] [-layout NAME | layout flags] [-after ID]\n"+
		"       uidgen gen -segment TAG -dsn DSN [-n N] [-start S] [-step S] [-segment-table NAME]",
		"uidgen gen -n 3 -json\n  uidgen gen -segment order -dsn 'root@tcp(127.0.0.1:3306)/test' -n 5", stderr)
	n := fs.Int("n", 10, "how many IDs to print")
	generator := fs.String("generator", "cached", "cached (the ring) or default (per-call Snowflake)")
	asJSON := fs.Bool("json", false, "print each ID taken apart, as a JSON object with string numbers")
	key := fs.String("key", "", "make every ID for this shard key (needs -gene-bits): its low gene bits are the key's")
	var mf makerFlags
	mf.register(fs, store)
	var sf segmentFlags
	sf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("%w: -n %d: must be 0 or more", ErrUsage, *n)
	}
	if sf.tag != "" {
		if err := segmentConflicts(fs, "segment", "segment-table", "start", "step", "claim-every", "max-step", "dsn", "db", "n"); err != nil {
			return err
		}
		dsn, err := mf.worker.tagDSN()
		if err != nil {
			return err
		}
		return genSegment(&sf, dsn, *n, stdout)
	}
	if name := setFlag(fs, "segment-table", "start", "step", "claim-every", "max-step"); name != "" {
		return fmt.Errorf("%w: -%s needs -segment", ErrUsage, name)
	}
	g, cfg, err := mf.open(*generator)
	if err != nil {
		return err
	}
	defer g.close()
	next := g.next
	if *key != "" {
		k, err := strconv.ParseInt(*key, 10, 64)
		if err != nil {
			return fmt.Errorf("%w: -key %q is not a 64-bit integer", ErrUsage, *key)
		}
		if cfg.GeneBits == 0 {
			return fmt.Errorf("%w: -key needs -gene-bits: the key goes in the gene bits", ErrUsage)
		}
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
		out.WriteString(strconv.FormatInt(uid, 10))
		out.WriteByte('\n')
	}
	return out.Flush()
}
