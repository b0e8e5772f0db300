package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/seed4d941b13/uidgen"
)

func runLayouts(args []string, stdout, stderr io.Writer, _ leaseStore) error {
	fs := newFlagSet("layouts", "layouts",
		"uidgen layouts\n  uidgen parse -layout discord -json 175928847299117063", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: layouts takes no arguments, not %q", ErrUsage, fs.Args())
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTICK\tTIME\tWORKER\tSEQ\tFIELDS FROM THE TOP\tEPOCH (UTC)\tRUNS OUT (UTC)")
	for _, name := range uidgen.LayoutNames() {
		l, err := uidgen.NamedLayout(name)
		if err != nil {
			return err
		}
		s := l.Bits().Spec()
		fmt.Fprintf(tw, "%s\t%v\t%d\t%d\t%d\t%s\t%s\t%s\n", name, l.Tick(), s.TimeBits, s.WorkerBits, s.SeqBits,
			fieldOrder(l), l.Epoch().UTC().Format("2006-01-02 15:04:05.999"), l.RunsOut().UTC().Format("2006-01-02"))
	}
	return tw.Flush()
}

// fieldOrder names l's fields from the top bit down, as "sign time worker
// seq": the order is what tells Twitter's layouts from sonyflake's.
func fieldOrder(l uidgen.Layout) string {
	s := l.Bits().Spec()
	f := []string{"sign", "time", "worker", "seq"}
	if s.SeqAboveWorker {
		f[2], f[3] = f[3], f[2]
	}
	if s.GeneBits > 0 {
		f = append(f, "gene")
	}
	if s.NoSignBit {
		f = f[1:]
	}
	return strings.Join(f, " ")
}
