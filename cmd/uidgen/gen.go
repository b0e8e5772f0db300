package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/worker"
)

func runGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gen", "gen [-n N] [-json] [-worker ID] [layout flags]",
		"uidgen gen -n 3 -json", stderr)
	n := fs.Int("n", 10, "how many IDs to print")
	asJSON := fs.Bool("json", false, "print each ID taken apart, as a JSON object with string numbers")
	workerID := fs.Int64("worker", 0, "static worker ID; no other process may use it with the same layout")
	var layout layoutFlags
	layout.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("%w: -n %d: must be 0 or more", errUsage, *n)
	}
	cfg, err := layout.config(worker.Static(*workerID))
	if err != nil {
		return err
	}
	g, err := defaultgen.New(context.Background(), cfg)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	enc := json.NewEncoder(stdout)
	for range *n {
		uid, err := g.NextID()
		if err != nil {
			return err
		}
		if *asJSON {
			if err := enc.Encode(g.Parse(uid)); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintln(stdout, uid)
	}
	return nil
}
