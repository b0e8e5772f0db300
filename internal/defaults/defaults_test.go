package defaults

import (
	"errors"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
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

func TestPaddingFactor(t *testing.T) {
	for _, tt := range []struct {
		f, want int
		err     bool
	}{
		{0, 50, false}, {1, 1, false}, {99, 99, false}, {-1, 0, true}, {100, 0, true},
	} {
		got, err := PaddingFactor(tt.f)
		if got != tt.want || (err != nil) != tt.err || err != nil && !errors.Is(err, uidgen.ErrConfig) {
			t.Errorf("PaddingFactor(%d) = %d, %v; want %d, an error wrapping uidgen.ErrConfig: %v", tt.f, got, err, tt.want, tt.err)
		}
	}
}
