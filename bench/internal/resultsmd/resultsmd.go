// Package resultsmd is what the commands that write bench/RESULTS.md
// share: its sections, and how numbers read in it.
//
// The file has one writer per section: cmd/report rewrites the whole of it
// from a run of run.sh and keeps, as they are, the sections other commands
// own (cmd/serve's) and the one written by hand, which come last.
package resultsmd

import (
	"fmt"
	"strings"
)

// The headings of the sections cmd/report keeps, in the order they stand.
const (
	Serve  = "## uidgen serve under wrk\n"
	ByHand = "## Measured once, by hand\n"
)

var kept = []string{Serve, ByHand}

// Kept returns the part of md from the first kept section through the end,
// or "" when md has none.
func Kept(md string) string {
	for i := 0; i < len(md); {
		for _, h := range kept {
			if strings.HasPrefix(md[i:], h) {
				return md[i:]
			}
		}
		next := strings.IndexByte(md[i:], '\n')
		if next < 0 {
			break
		}
		i += next + 1
	}
	return ""
}

// Replace returns md with the section that heading starts (through the
// line before the next "## " heading) replaced by section, which starts
// with heading and ends with a newline. Where md has no such section,
// section goes before the one ByHand starts, or at the end.
func Replace(md, heading, section string) string {
	start := lineIndex(md, heading)
	if start < 0 {
		at := lineIndex(md, ByHand)
		if at < 0 {
			if md != "" && !strings.HasSuffix(md, "\n\n") {
				md = strings.TrimRight(md, "\n") + "\n\n"
			}
			return md + section
		}
		return md[:at] + section + "\n" + md[at:]
	}
	end := len(md)
	if next := strings.Index(md[start+len(heading):], "\n## "); next >= 0 {
		end = start + len(heading) + next + 1
		return md[:start] + section + "\n" + md[end:]
	}
	return md[:start] + section
}

// lineIndex returns where line starts a line of md, or -1.
func lineIndex(md, line string) int {
	if strings.HasPrefix(md, line) {
		return 0
	}
	if i := strings.Index(md, "\n"+line); i >= 0 {
		return i + 1
	}
	return -1
}

// SI formats v with about three significant digits and a suffix of k, M
// or G: 87.8M, 1.58k, 412.
func SI(v float64) string {
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= u.div {
			return sig3(v/u.div) + u.suffix
		}
	}
	return sig3(v)
}

func sig3(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
