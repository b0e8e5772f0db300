package dialect

import (
	"slices"
	"testing"
)

// TestCompare: a table of the wanted columns, in any case and order, with
// types of their class, passes and reports the added columns it lacks; any
// other table is refused with every column missing, of another type or its
// own named.
func TestCompare(t *testing.T) {
	want := []Want{
		{Name: "ID", Class: Int},
		{Name: "HOST", Class: Text, Length: 64},
		{Name: "SEEN", Class: Time},
		{Name: "UNTIL", Class: Int64, Added: true},
		{Name: "OWNER", Class: Text, Length: 32, Added: true},
	}
	for _, tt := range []struct {
		name  string
		d     *Dialect
		have  []Column
		lacks []string
		err   string
	}{
		{"all of them", MySQL, []Column{{"ID", "bigint", 0}, {"HOST", "varchar", 64}, {"SEEN", "timestamp", 0},
			{"UNTIL", "bigint", 0}, {"OWNER", "char", 32}}, nil, ""},
		{"none added", Postgres, []Column{{"host", "character varying", 255}, {"id", "integer", 0},
			{"seen", "timestamp without time zone", 0}}, []string{"UNTIL", "OWNER"}, ""},
		{"one added", SQLite, []Column{{"ID", "INTEGER", 0}, {"HOST", "VARCHAR(64)", 0}, {"SEEN", "TIMESTAMPTZ", 0},
			{"UNTIL", "INT", 0}}, []string{"OWNER"}, ""},
		{"untyped", SQLite, []Column{{"ID", "", 0}, {"HOST", "TEXT", 0}, {"SEEN", "DATETIME", 0}}, nil,
			"column ID is untyped, want an integer"},
		{"no limit", Postgres, []Column{{"id", "smallint", 0}, {"host", "text", 0}, {"seen", "date", 0},
			{"owner", "character varying", 0}}, []string{"UNTIL"}, ""},
		{"another table", SQLite, []Column{{"id", "INTEGER", 0}, {"name", "TEXT", 0}, {"note", "TEXT", 0}}, nil,
			"no column HOST or SEEN; its own columns name and note"},
		{"one missing", MySQL, []Column{{"ID", "bigint", 0}, {"HOST", "varchar", 64}}, nil, "no column SEEN"},
		{"one more", MySQL, []Column{{"ID", "bigint", 0}, {"HOST", "varchar", 64}, {"SEEN", "date", 0}, {"REGION", "int", 0}}, nil,
			"its own column REGION"},
		{"another type", Postgres, []Column{{"id", "bigint", 0}, {"host", "integer", 0}, {"seen", "date", 0}}, nil,
			"column host is integer, want characters"},
		{"too short", MySQL, []Column{{"ID", "bigint", 0}, {"HOST", "varchar", 16}, {"SEEN", "date", 0}}, nil,
			"column HOST is varchar(16), want characters of 64 or more"},
		{"32 bits", MySQL, []Column{{"ID", "int", 0}, {"HOST", "varchar", 64}, {"SEEN", "datetime", 0}, {"UNTIL", "int", 0}}, nil,
			"column UNTIL is int, want a 64-bit integer (BIGINT)"},
		{"an unknown type", Postgres, []Column{{"id", "numeric", 0}, {"host", "text", 0}, {"seen", "interval", 0}}, nil,
			"column id is numeric, want an integer; column seen is interval, want a date or time"},
		{"everything", MySQL, []Column{{"ID", "varchar", 10}, {"X", "int", 0}, {"Y", "int", 0}, {"Z", "int", 0}}, nil,
			"no column HOST or SEEN; column ID is varchar(10), want an integer; its own columns X, Y and Z"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lacks, err := tt.d.Compare(tt.have, want)
			var names []string
			for _, w := range lacks {
				names = append(names, w.Name)
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.err || !slices.Equal(names, tt.lacks) {
				t.Fatalf("Compare = %v, %q; want %v, %q", names, got, tt.lacks, tt.err)
			}
		})
	}
}
