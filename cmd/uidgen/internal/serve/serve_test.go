package serve

import "testing"

func TestPrefersText(t *testing.T) {
	for accept, want := range map[string]bool{
		"":                                   false,
		"text/plain":                         true,
		"application/json":                   false,
		"*/*":                                false,
		"text/*":                             true,
		"text/plain, application/json":       false, // a tie goes to JSON
		"text/plain;q=0.5, application/json": false,
		"application/json;q=0.5, text/plain": true,
		"*/*;q=0.1, text/plain":              true,
		"text/plain;q=0, */*":                false,
		"text/plain;q=nonsense":              true, // a q that does not parse counts as 1
		";;;, text/plain":                    true,
		"image/png":                          false,
	} {
		if got := prefersText(accept); got != want {
			t.Errorf("prefersText(%q) = %v, want %v", accept, got, want)
		}
	}
}
