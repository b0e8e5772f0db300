package dialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Column is a column of a table as the server describes it.
type Column struct {
	Name string // as the server spells it
	// Type is the server's name of the type: MySQL's DATA_TYPE,
	// PostgreSQL's data_type, SQLite's declared type.
	Type string
	// Length is the most characters a character column holds, where the
	// server keeps a limit (MySQL, PostgreSQL); 0 otherwise.
	Length int64
}

// typeName returns the column's type as people write it, "varchar(16)";
// a SQLite column may have none.
func (c Column) typeName() string {
	switch {
	case c.Type == "":
		return "untyped"
	case c.Length > 0:
		return fmt.Sprintf("%s(%d)", c.Type, c.Length)
	}
	return c.Type
}

// Columns returns the columns of table, in order, in the database (for
// PostgreSQL, the schema) db's connections use; none where there is no such
// table. PostgreSQL folds an unquoted name to lower case, so the table is
// looked up so.
func (d *Dialect) Columns(ctx context.Context, db *sql.DB, table string) ([]Column, error) {
	rows, err := db.QueryContext(ctx, d.columns, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []Column
	for rows.Next() {
		var c Column
		if err := rows.Scan(&c.Name, &c.Type, &c.Length); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// Class is what a column holds, as the packages' statements read and write
// it: any type of the class serves.
type Class int

const (
	Int   Class = iota + 1 // an integer of any width
	Int64                  // an integer of 64 bits: Unix milliseconds, numbers past 2^31
	Text                   // characters
	Time                   // a date, or a date and time
)

// classNames say each Class in an error.
var classNames = map[Class]string{Int: "an integer", Int64: "a 64-bit integer (BIGINT)", Text: "characters", Time: "a date or time"}

// classes maps the first word of a type's name, in lower case, to its
// class: the names MySQL's and PostgreSQL's information_schema give, and
// the ones the packages' DDL writes for SQLite.
var classes = map[string]Class{
	"tinyint": Int, "smallint": Int, "mediumint": Int, "int": Int, "integer": Int, "bigint": Int64,
	"char": Text, "varchar": Text, "character": Text, "text": Text, "tinytext": Text, "mediumtext": Text, "longtext": Text,
	"date": Time, "datetime": Time, "timestamp": Time, "timestamptz": Time,
}

// classOf returns the class of a column of type typ, 0 for one the
// packages do not use. In SQLite every integer is 64 bits, whatever the
// declared type says.
func (d *Dialect) classOf(typ string) Class {
	word, _, _ := strings.Cut(strings.ToLower(typ), "(")
	word, _, _ = strings.Cut(strings.TrimSpace(word), " ")
	c := classes[word]
	if c == Int && d == SQLite {
		return Int64
	}
	return c
}

// Want is a column that a package's statements name.
type Want struct {
	Name  string // as the package's DDL spells it
	Class Class
	// Length is, for Text, the fewest characters the column must hold:
	// the width the package's DDL gives it, which no value it writes
	// passes.
	Length int64
	// Added says the package adds the column to a table that lacks it.
	Added bool
}

// Compare compares have, the columns of an existing table (Columns), with
// want, by name in any case. Where have has every column of want but the
// Added ones, each of its class and long enough, and no other, it returns
// the Added columns missing. Otherwise it returns an error that names each
// column that is missing, of another type or not in want: a package
// refuses such a table, the table of another program, before it changes
// anything.
func (d *Dialect) Compare(have []Column, want []Want) (lacks []Want, err error) {
	byName := make(map[string]Column, len(have))
	for _, c := range have {
		byName[strings.ToUpper(c.Name)] = c
	}
	var missing, wrong, others []string
	for _, w := range want {
		c, ok := byName[strings.ToUpper(w.Name)]
		delete(byName, strings.ToUpper(w.Name))
		switch class := d.classOf(c.Type); {
		case !ok && w.Added:
			lacks = append(lacks, w)
		case !ok:
			missing = append(missing, w.Name)
		case class != w.Class && !(w.Class == Int && class == Int64):
			wrong = append(wrong, fmt.Sprintf("column %s is %s, want %s", c.Name, c.typeName(), classNames[w.Class]))
		case w.Length > 0 && c.Length > 0 && c.Length < w.Length:
			wrong = append(wrong, fmt.Sprintf("column %s is %s, want %s of %d or more", c.Name, c.typeName(), classNames[w.Class], w.Length))
		}
	}
	for _, c := range have {
		if _, ok := byName[strings.ToUpper(c.Name)]; ok {
			others = append(others, c.Name)
		}
	}
	var says []string
	if len(missing) > 0 {
		says = append(says, "no column "+list(missing, "or"))
	}
	says = append(says, wrong...)
	if len(others) > 0 {
		says = append(says, "its own column"+plural(others)+" "+list(others, "and"))
	}
	if len(says) > 0 {
		return nil, errors.New(strings.Join(says, "; "))
	}
	return lacks, nil
}

// plural is "s" where names are more than one.
func plural(names []string) string {
	if len(names) > 1 {
		return "s"
	}
	return ""
}

// list says names as a list joined by and or or: "A", "A or B", "A, B or C".
func list(names []string, and string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + and + " " + names[len(names)-1]
}
