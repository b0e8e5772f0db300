package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/seed4d941b13/uidgen/defaultgen"
)

func runGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gen", "gen [-n N] [-json] [-worker ID | -dsn DSN] [layout flags]",
		"uidgen gen -n 3 -json", stderr)
	n := fs.Int("n", 10, "how many IDs to print")
	asJSON := fs.Bool("json", false, "print each ID taken apart, as a JSON object with string numbers")
	var (
		layout layoutFlags
		wf     workerFlags
	)
	layout.register(fs)
	wf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("%w: -n %d: must be 0 or more", errUsage, *n)
	}
	assigner, release, err := wf.assigner()
	if err != nil {
		return err
	}
	defer release()
	cfg, err := layout.config(assigner)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), assignTimeout)
	defer cancel()
	g, err := defaultgen.New(ctx, cfg)
	if err != nil {
		return usageIf(err)
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
