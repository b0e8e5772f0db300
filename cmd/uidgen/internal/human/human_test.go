package human

import (
	"testing"
	"time"
)

// TestAhead: bench's and the status page's "ahead" are whole seconds
// from a second on, and milliseconds below, where a layout of millisecond
// ticks borrows.
func TestAhead(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {400 * time.Microsecond, "0s"}, {45 * time.Millisecond, "45ms"}, {999 * time.Millisecond, "999ms"},
		{1500 * time.Millisecond, "1s"}, {20044 * time.Second, "20044s"},
	} {
		if got := Ahead(tt.d); got != tt.want {
			t.Errorf("Ahead(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 65536: "65,536", 1234567: "1,234,567"} {
		if got := Group(n); got != want {
			t.Errorf("Group(%d) = %q, want %q", n, got, want)
		}
	}
}
