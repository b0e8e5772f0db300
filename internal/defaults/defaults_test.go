package defaults

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{time.Second, "1s"},
		{time.Hour, "1h"},
		{24 * time.Hour, "24h"},
		{5 * time.Minute, "5m"},
		{90 * time.Minute, "1h30m"},
		{90 * time.Second, "1m30s"},
		{-2 * time.Hour, "-2h"},
		{1500 * time.Millisecond, "1.5s"},
		{0, "0s"},
	} {
		if got := Duration(tt.d); got != tt.want {
			t.Errorf("Duration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
