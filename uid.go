package uidgen

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
)

// UID is an ID in transit: the int64 a generator returns (which ID.UID
// holds, taken apart), typed to travel as decimal text. Convert one with
// UID(id) and back with int64(u); write it in another encoding with
// Encoding.Format(int64(u)).
//
// Its JSON is a string, "512360392635531266" (encoding/json writes
// MarshalText's digits as one), because a UID is above 2^53, the largest
// integer a JavaScript number holds exactly; UnmarshalJSON takes a number
// too. In SQL it is a BIGINT. Its zero value, 0, is a
// valid ID. A negative UID is never an ID: every method that can fail
// refuses one with ErrIDRange, and String prints it with its sign.
type UID int64

// String returns u in decimal, as Decimal.Format does.
func (u UID) String() string { return strconv.FormatInt(int64(u), 10) }

// MarshalText returns u in decimal, or an error wrapping ErrIDRange if u
// is negative; it is u's JSON too, as a string.
func (u UID) MarshalText() ([]byte, error) {
	if u < 0 {
		return nil, u.negative()
	}
	return strconv.AppendInt(nil, int64(u), 10), nil
}

// UnmarshalText sets u to the decimal ID in text, as Decimal.Parse reads
// it, and leaves u unchanged on an error.
func (u *UID) UnmarshalText(text []byte) error { return u.parse(string(text)) }

// parse sets u to the decimal ID in s, and leaves it unchanged on an error.
func (u *UID) parse(s string) error {
	id, err := Decimal.Parse(s)
	if err != nil {
		return err
	}
	*u = UID(id)
	return nil
}

// UnmarshalJSON sets u from a JSON string of decimal digits, with no
// escapes, or a JSON number written as digits alone (no sign, fraction or
// exponent), each read as Decimal.Parse reads it. JSON null leaves u
// unchanged, as encoding/json does for a number; an error leaves it
// unchanged too.
func (u *UID) UnmarshalJSON(data []byte) error {
	s := string(data)
	if s == "null" {
		return nil
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	return u.parse(s)
}

// Scan implements sql.Scanner for a BIGINT column: it takes an int64 of 0
// or more, or decimal digits as []byte or string (as drivers that read
// text give a BIGINT), and leaves u unchanged on an error. SQL NULL is an
// error, as database/sql's own int64 gives, since 0 is an ID: scan a
// nullable column into a *UID or a sql.Null[UID].
func (u *UID) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		if v < 0 {
			return UID(v).negative()
		}
		*u = UID(v)
		return nil
	case []byte:
		return u.parse(string(v))
	case string:
		return u.parse(v)
	case nil:
		return errors.New("scanning NULL into a UID: 0 is an ID; scan a nullable column into *UID or sql.Null[UID]")
	}
	return fmt.Errorf("scanning %T into a UID: want int64, []byte or string", src)
}

// Value implements driver.Valuer: u as an int64 for a BIGINT column, or an
// error wrapping ErrIDRange if u is negative.
func (u UID) Value() (driver.Value, error) {
	if u < 0 {
		return nil, u.negative()
	}
	return int64(u), nil
}

func (u UID) negative() error {
	return fmt.Errorf("%w: UID %d is negative, and no ID is", ErrIDRange, int64(u))
}
