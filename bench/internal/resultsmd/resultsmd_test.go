package resultsmd

import "testing"

func TestKept(t *testing.T) {
	for _, tt := range []struct{ md, want string }{
		{"", ""},
		{"# r\n\n## a\nx\n", ""},
		{"# r\n\n## a\nx\n\n" + ByHand + "\nby hand\n", ByHand + "\nby hand\n"},
		{"# r\n\n" + Serve + "\nwrk\n\n" + ByHand + "\nby hand\n", Serve + "\nwrk\n\n" + ByHand + "\nby hand\n"},
		{ByHand + "x\n", ByHand + "x\n"},
		{"# r\n\n### " + ByHand[3:] + "x\n", ""}, // a lower heading is not the section
	} {
		if got := Kept(tt.md); got != tt.want {
			t.Errorf("Kept(%q) = %q, want %q", tt.md, got, tt.want)
		}
	}
}

func TestReplace(t *testing.T) {
	const s = Serve + "\nnew\n"
	for _, tt := range []struct{ name, md, want string }{
		{"empty", "", s},
		{"appended", "# r\n\n## a\nx\n", "# r\n\n## a\nx\n\n" + s},
		{"before by hand", "# r\n\n" + ByHand + "\nh\n", "# r\n\n" + s + "\n" + ByHand + "\nh\n"},
		{"replaced", "# r\n\n" + Serve + "\nold\nold\n\n" + ByHand + "\nh\n", "# r\n\n" + s + "\n" + ByHand + "\nh\n"},
		{"replaced at the end", "# r\n\n" + Serve + "\nold\n", "# r\n\n" + s},
	} {
		if got := Replace(tt.md, Serve, s); got != tt.want {
			t.Errorf("%s: Replace(%q) = %q, want %q", tt.name, tt.md, got, tt.want)
		}
	}
}
