package serial

import "errors"

// Errors, tested with errors.Is. Every error this package returns starts
// "serial: " and names the pattern. A string that Parse refuses wraps
// uidgen.ErrIDSyntax or uidgen.ErrIDRange, as the encodings' do.
var (
	// ErrPattern: the pattern does not parse (an unknown field, a brace
	// not closed, N outside 1 to 18, a field twice), or is not one a
	// Segment takes (no {seq:N}, a {worker:N}, a period finer than an
	// hour).
	ErrPattern = errors.New("bad pattern")

	// ErrFit: a Snowflake pattern cannot hold every ID of its layout; the
	// error names what is missing.
	ErrFit = errors.New("pattern does not fit the layout")

	// ErrZone: the zone's offset from UTC changes within a layout's
	// times, so a Snowflake's strings would repeat.
	ErrZone = errors.New("zone changes its offset")

	// ErrOverflow: a period's numbers outgrew the digits of {seq:N}.
	ErrOverflow = errors.New("sequence outgrew its digits")
)
