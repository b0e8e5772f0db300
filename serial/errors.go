package serial

import "errors"

// Errors, tested with errors.Is. Every error this package returns starts
// "serial: " and names the pattern. A pattern, layout or zone that
// NewSnowflake or NewSegment refuses wraps uidgen.ErrConfig: the pattern
// does not parse, is not one a Segment takes, cannot hold every ID of its
// layout, or its zone changes its offset within the layout's times; the
// error names which. A string that Parse refuses wraps uidgen.ErrIDSyntax
// or uidgen.ErrIDRange, as the encodings' do.
var (
	// ErrOverflow: a period's numbers outgrew the digits of {seq:N}.
	ErrOverflow = errors.New("sequence outgrew its digits")
)
