package main

import (
	"flag"
	"fmt"
)

// A flagRule says which flags go together: Flag, where set, needs Needs
// set too, and must not come with Not.
type flagRule struct {
	flag, needs, not string
	why              string // what the usage error adds, if anything
}

// segmentRules are the flags of segment mode, which need -segment.
var segmentRules = []flagRule{
	{flag: "segment-table", needs: "segment"},
	{flag: "start", needs: "segment"},
	{flag: "step", needs: "segment"},
	{flag: "claim-every", needs: "segment"},
	{flag: "max-step", needs: "segment"},
}

// checkRules returns a usage error for the first of rules that the flags
// set on fs break: "-tz needs -format: ..." or "-json and -encoding: ...".
func checkRules(fs *flag.FlagSet, rules ...flagRule) error {
	for _, r := range rules {
		if setFlag(fs, r.flag) == "" {
			continue
		}
		var broken string
		switch {
		case r.needs != "" && setFlag(fs, r.needs) == "":
			broken = fmt.Sprintf("-%s needs -%s", r.flag, r.needs)
		case r.not != "" && setFlag(fs, r.not) != "":
			broken = fmt.Sprintf("-%s and -%s", r.flag, r.not)
		default:
			continue
		}
		if r.why != "" {
			broken += ": " + r.why
		}
		return fmt.Errorf("%w: %s", ErrUsage, broken)
	}
	return nil
}
