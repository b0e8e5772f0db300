// Package dialect holds what differs between the SQL databases that the
// packages keeping state in a table (worker, segment) talk to: MySQL (and
// MariaDB) through github.com/go-sql-driver/mysql, PostgreSQL through
// github.com/jackc/pgx/v5/stdlib, and SQLite files through modernc.org/sqlite
// (or github.com/ncruces/go-sqlite3/driver).
//
// It imports no driver. database/sql's convention is that a program
// imports the driver it uses, so a program that uses one database links
// only that one's driver: the dialect is read off the type of the driver a
// *sql.DB was opened with, and a driver's errors are read by their SQLSTATE
// (pgx's PgError has a method for it), for MySQL by the error number
// field of the driver's MySQLError, found by reflection, and for SQLite by
// the primary result code in the error's Code method or its message.
package dialect

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"strconv"
	"strings"

	"github.com/seed4d941b13/uidgen"
)

// Dialect is one SQL server's way of saying what the packages need.
type Dialect struct {
	name string // as people write it
	key  string // as Named, Config.Dialect and `uidgen schema -dialect` take it

	// nowMillis and nowSeconds are the server's clock, as Unix
	// milliseconds and seconds, in an expression of type BIGINT.
	nowMillis, nowSeconds string

	// unixSeconds, nullSafeEqual and greatest are formats of the
	// expressions that UnixSeconds, NullSafeEqual and Greatest return.
	unixSeconds, nullSafeEqual, greatest string

	numbered  bool // placeholders are $1, $2, ..., not ?
	returning bool // UPDATE ... RETURNING reads back what it wrote

	maxIdentifier int // the longest table name the server keeps whole

	// columns lists the name, type and length (0 for none) of each
	// column of the table named by its one placeholder (Columns).
	columns string

	// codes map the server's error codes (MySQL's numbers, PostgreSQL's
	// SQLSTATEs, SQLite's primary result codes) to what they mean here.
	codes map[string]Kind

	// messages map text in a SQLite error's message to its Kind, where
	// its result code (SQLITE_ERROR) says too little, or where the driver
	// has no Code method that this package reads.
	messages map[string]Kind
}

// Kind is what a server's error says happened, where the packages act on it.
type Kind int

const (
	Other        Kind = iota
	AccessDenied      // the user, its password or its rights
	NoTable           // the table does not exist
	NoColumn          // a column does not exist
	DupKey            // a row has that key already
	TableExists       // CREATE TABLE of a table that exists
	DupColumn         // ADD COLUMN of a column that exists
	NullColumn        // a NOT NULL column got no value
	Busy              // another connection holds the lock the statement waited for
	NotDatabase       // the file is not a database of the dialect
	Unreachable       // the database could not be opened or reached
)

// MySQL is MySQL's and MariaDB's dialect, as go-sql-driver/mysql speaks it.
//
// UNIX_TIMESTAMP counts from the epoch in UTC; only in a session time zone
// with daylight saving time is NOW(3) ambiguous, in the hour repeated each
// autumn, which can misjudge a lease's expiry by that hour: a lease taken
// early costs its holder the lease, never a second twice.
var MySQL = &Dialect{
	name:          "MySQL",
	key:           "mysql",
	nowMillis:     "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)",
	nowSeconds:    "UNIX_TIMESTAMP()",
	unixSeconds:   "CAST(UNIX_TIMESTAMP(%s) AS SIGNED)",
	nullSafeEqual: "%s <=> %s",
	greatest:      "GREATEST(%s, %s)",
	maxIdentifier: 64,
	columns: "SELECT COLUMN_NAME, DATA_TYPE, COALESCE(CHARACTER_MAXIMUM_LENGTH, 0) FROM information_schema.COLUMNS" +
		" WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION",
	codes: map[string]Kind{
		"1044": AccessDenied, // ER_DBACCESS_DENIED_ERROR: user may not use the database
		"1045": AccessDenied, // ER_ACCESS_DENIED_ERROR: unknown user or wrong password
		"1142": AccessDenied, // ER_TABLEACCESS_DENIED_ERROR: user may not INSERT or CREATE
		"1698": AccessDenied, // ER_ACCESS_DENIED_NO_PASSWORD_ERROR: MariaDB's answer to an unknown user
		"1146": NoTable,      // ER_NO_SUCH_TABLE
		"1054": NoColumn,     // ER_BAD_FIELD_ERROR
		"1062": DupKey,       // ER_DUP_ENTRY
		"1050": TableExists,  // ER_TABLE_EXISTS_ERROR
		"1060": DupColumn,    // ER_DUP_FIELDNAME
		"1364": NullColumn,   // ER_NO_DEFAULT_FOR_FIELD
	},
}

// Postgres is PostgreSQL's dialect, as pgx's database/sql driver speaks it.
// now() is the start of the statement's transaction: with database/sql's
// autocommit, the statement's own start.
var Postgres = &Dialect{
	name:          "PostgreSQL",
	key:           "postgres",
	nowMillis:     "FLOOR(EXTRACT(EPOCH FROM now()) * 1000)::BIGINT",
	nowSeconds:    "FLOOR(EXTRACT(EPOCH FROM now()))::BIGINT",
	unixSeconds:   "FLOOR(EXTRACT(EPOCH FROM %s))::BIGINT",
	nullSafeEqual: "%s IS NOT DISTINCT FROM %s",
	greatest:      "GREATEST(%s, %s)",
	numbered:      true,
	returning:     true,
	maxIdentifier: 63,
	columns: "SELECT column_name, data_type, COALESCE(character_maximum_length, 0) FROM information_schema.columns" +
		" WHERE table_schema = current_schema() AND table_name = LOWER($1) ORDER BY ordinal_position",
	codes: map[string]Kind{
		"28000": AccessDenied, // invalid_authorization_specification: no such role
		"28P01": AccessDenied, // invalid_password
		"42501": AccessDenied, // insufficient_privilege
		"42P01": NoTable,      // undefined_table
		"42703": NoColumn,     // undefined_column
		"23505": DupKey,       // unique_violation
		"42P07": TableExists,  // duplicate_table
		"42710": TableExists,  // duplicate_object: the row type of a table another session is creating
		"42701": DupColumn,    // duplicate_column
		"23502": NullColumn,   // not_null_violation
	},
}

// SQLite is SQLite's dialect, for a database in a file on this machine.
// Its clock is this machine's; 'now' is one instant for the whole
// statement. The table name has no length limit in SQLite; 64 keeps a name
// that is good here good on the servers too. Errors are told apart by
// their primary result code, and, where it is SQLITE_ERROR, by the message,
// which SQLite has kept the same for decades.
var SQLite = &Dialect{
	name:          "SQLite",
	key:           "sqlite",
	nowMillis:     "CAST(unixepoch('subsec') * 1000 AS INTEGER)",
	nowSeconds:    "unixepoch()",
	unixSeconds:   "unixepoch(%s)",
	nullSafeEqual: "%s IS %s",
	greatest:      "MAX(%s, %s)",
	returning:     true,
	maxIdentifier: 64,
	columns:       "SELECT name, type, 0 FROM pragma_table_info(?) ORDER BY cid",
	codes: map[string]Kind{
		"3":  AccessDenied, // SQLITE_PERM
		"5":  Busy,         // SQLITE_BUSY: busy_timeout passed with the lock still held
		"6":  Busy,         // SQLITE_LOCKED
		"8":  AccessDenied, // SQLITE_READONLY
		"14": Unreachable,  // SQLITE_CANTOPEN
		"23": AccessDenied, // SQLITE_AUTH
		"26": NotDatabase,  // SQLITE_NOTADB
	},
	messages: map[string]Kind{
		"no such table":              NoTable,
		"no such column":             NoColumn,
		"has no column named":        NoColumn, // an INSERT's
		"UNIQUE constraint failed":   DupKey,
		"already exists":             TableExists,
		"duplicate column name":      DupColumn,
		"NOT NULL constraint failed": NullColumn,
		"database is locked":         Busy,
		"file is not a database":     NotDatabase,
		"unable to open database":    Unreachable,
		"readonly database":          AccessDenied,
	},
}

// drivers maps the import path of a database/sql driver's package to its
// dialect.
var drivers = map[string]*Dialect{
	"github.com/go-sql-driver/mysql":       MySQL,
	"github.com/jackc/pgx/v5/stdlib":       Postgres,
	"modernc.org/sqlite":                   SQLite,
	"github.com/ncruces/go-sqlite3/driver": SQLite,
}

// Of returns the dialect of the driver db, a Config's DB, was opened with,
// or an error wrapping uidgen.ErrConfig that says DB is nil or names its
// driver.
func Of(db *sql.DB) (*Dialect, error) {
	if db == nil {
		return nil, fmt.Errorf("%w: DB is nil: want a *sql.DB of MySQL, PostgreSQL or SQLite", uidgen.ErrConfig)
	}
	t := reflect.TypeOf(db.Driver())
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if d, ok := drivers[t.PkgPath()]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("%w: DB's driver is %s.%s; want github.com/go-sql-driver/mysql (sql.Open(\"mysql\", dsn)),"+
		" github.com/jackc/pgx/v5/stdlib (sql.Open(\"pgx\", dsn)) or modernc.org/sqlite (sql.Open(\"sqlite\", path))",
		uidgen.ErrConfig, t.PkgPath(), t.Name())
}

// For returns the dialect called name, or where name is "" the dialect of
// db's driver (Of): a program whose driver is wrapped, by an instrumenting
// driver of another package, names the dialect itself.
func For(db *sql.DB, name string) (*Dialect, error) {
	if name == "" || db == nil {
		return Of(db)
	}
	return Named(name)
}

// ForTable is For, then CheckTable of table: the checks that a package
// keeping a table makes of its DB, dialect and table name before it sends
// anything.
func ForTable(db *sql.DB, name, table string) (*Dialect, error) {
	d, err := For(db, name)
	if err != nil {
		return nil, err
	}
	if err := d.CheckTable(table); err != nil {
		return nil, err
	}
	return d, nil
}

// Named returns the dialect called name: "mysql", "postgres" (also
// "postgresql" and "pgx") or "sqlite" (also "sqlite3"), in any case.
func Named(name string) (*Dialect, error) {
	switch strings.ToLower(name) {
	case "mysql", "mariadb":
		return MySQL, nil
	case "postgres", "postgresql", "pgx":
		return Postgres, nil
	case "sqlite", "sqlite3":
		return SQLite, nil
	}
	return nil, fmt.Errorf("%w: Dialect %q: want mysql, postgres or sqlite", uidgen.ErrConfig, name)
}

// String returns the database's name as people write it.
func (d *Dialect) String() string { return d.name }

// SchemaCommand returns the command that prints a package's DDL in this
// dialect, with flags (as "-segment") before -dialect: a fix that an error
// suggests names the dialect in use, not the command's default, MySQL.
func (d *Dialect) SchemaCommand(flags string) string {
	return strings.TrimSpace("uidgen schema "+flags) + " -dialect " + d.key
}

// NowMillis returns an expression of the server's clock in Unix
// milliseconds.
func (d *Dialect) NowMillis() string { return d.nowMillis }

// NowSeconds returns an expression of the server's clock in whole Unix
// seconds.
func (d *Dialect) NowSeconds() string { return d.nowSeconds }

// UnixSeconds returns an expression of the instant in expr, a TIMESTAMP
// column, in whole Unix seconds.
func (d *Dialect) UnixSeconds(expr string) string { return fmt.Sprintf(d.unixSeconds, expr) }

// NullSafeEqual returns the comparison of a and b that holds when both are
// NULL.
func (d *Dialect) NullSafeEqual(a, b string) string { return fmt.Sprintf(d.nullSafeEqual, a, b) }

// Greatest returns the larger of a and b, neither NULL.
func (d *Dialect) Greatest(a, b string) string { return fmt.Sprintf(d.greatest, a, b) }

// Returning reports whether an UPDATE can read back what it wrote with
// RETURNING (PostgreSQL, SQLite), rather than through LAST_INSERT_ID (MySQL).
func (d *Dialect) Returning() bool { return d.returning }

// Rebind returns query with its ? placeholders numbered $1, $2, ... for
// PostgreSQL. Queries are written with ? for every dialect; none has a ?
// inside a string literal, which Rebind would also number.
func (d *Dialect) Rebind(query string) string {
	if !d.numbered || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c != '?' {
			b.WriteRune(c)
			continue
		}
		n++
		b.WriteString("$" + strconv.Itoa(n))
	}
	return b.String()
}

// CheckTable returns an error wrapping uidgen.ErrConfig unless name is a
// plain identifier that the server keeps whole: it is written into SQL
// unquoted.
func (d *Dialect) CheckTable(name string) error {
	if name == "" || len(name) > d.maxIdentifier {
		return fmt.Errorf("%w: Table %q is %d bytes: want 1 to %d", uidgen.ErrConfig, name, len(name), d.maxIdentifier)
	}
	for i, c := range name {
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return fmt.Errorf("%w: Table %q has %q at byte %d: want letters, digits and underscores, not starting with a digit",
				uidgen.ErrConfig, name, c, i)
		}
	}
	return nil
}

// CreateTable runs ddl, a CREATE TABLE, and reports whether it created the
// table: an answer that the table exists (TableExisted) is no error, so
// that many processes may create one table at once.
func (d *Dialect) CreateTable(ctx context.Context, db *sql.DB, ddl string) (created bool, err error) {
	_, err = db.ExecContext(ctx, ddl)
	if d.TableExisted(err) {
		return false, nil
	}
	return err == nil, err
}

// Exec runs query, with ? placeholders (Rebind), and returns how many rows
// it affected: the conditional updates the packages' proofs rest on are
// judged by that count.
func (d *Dialect) Exec(ctx context.Context, db *sql.DB, query string, args ...any) (int64, error) {
	res, err := db.ExecContext(ctx, d.Rebind(query), args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Kind returns what err, the driver's answer to a statement, says happened.
func (d *Dialect) Kind(err error) Kind {
	if err == nil {
		return Other
	}
	if code, ok := code(err); ok {
		if k, ok := d.codes[code]; ok {
			return k
		}
	}
	msg := err.Error()
	for text, k := range d.messages {
		if strings.Contains(msg, text) {
			return k
		}
	}
	return Other
}

// TableExisted reports whether err, the answer to a CREATE TABLE, says the
// table exists. Two PostgreSQL sessions creating one table at once may
// instead collide on the catalog's row type (duplicate_object) or on its
// unique index of type names (unique_violation), which say the same.
func (d *Dialect) TableExisted(err error) bool {
	k := d.Kind(err)
	return k == TableExists || d == Postgres && k == DupKey
}

// Cause wraps err, the driver's answer to a statement sent under ctx, with
// ctx.Err() when ctx is done, and otherwise with uidgen.ErrUnreachable (a
// network error, a connection lost mid-statement; a SQLite file locked
// throughout or not to be opened, said so without the word server) or
// uidgen.ErrAccessDenied where it says so; other errors come back as they are, for the caller to
// sort by Kind. A done ctx comes first: a deadline met while
// dialling is also a network timeout, and it is the caller's deadline that
// the caller must see.
func (d *Dialect) Cause(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		if !errors.Is(err, cerr) {
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		return err
	}
	switch d.Kind(err) {
	case AccessDenied:
		return fmt.Errorf("%w: %w", uidgen.ErrAccessDenied, err)
	case Busy:
		// To the caller a file another process keeps locked is a store
		// that does not answer: it may answer later.
		return fileUnreachable{fmt.Errorf("another connection held the SQLite file's lock throughout: %w", err)}
	case NotDatabase:
		return fmt.Errorf("not a SQLite database (another kind of file, encrypted or damaged): %w", err)
	case Unreachable:
		return fileUnreachable{fmt.Errorf("SQLite cannot open the file: its directory is missing, it is a directory, or this user may not read it: %w", err)}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) ||
		d == Postgres && connectionLost(err) {
		return fmt.Errorf("%w: %w", uidgen.ErrUnreachable, err)
	}
	return err
}

// fileUnreachable is a SQLite file's failure that a caller handles as it
// handles a server it cannot reach (errors.Is uidgen.ErrUnreachable), in
// words of a file: its message names no server.
type fileUnreachable struct{ error }

func (e fileUnreachable) Unwrap() error        { return e.error }
func (e fileUnreachable) Is(target error) bool { return target == uidgen.ErrUnreachable }

// Hint is how a package names one Kind of failure: the sentinel it wraps
// the error in, and what to do about it.
type Hint struct {
	Err error
	Fix string
}

// Explain is Cause, and then, unless ctx is done, wraps an error of a Kind
// that hints name in its sentinel, saying the fix.
func (d *Dialect) Explain(ctx context.Context, err error, hints map[Kind]Hint) error {
	err = d.Cause(ctx, err)
	if ctx.Err() != nil {
		return err
	}
	if h, ok := hints[d.Kind(err)]; ok {
		return fmt.Errorf("%w: %w (%s)", h.Err, err, h.Fix)
	}
	return err
}

// connectionLost reports a PostgreSQL error of class 08 (connection
// exception) or 57P (the server shut down or is starting up).
func connectionLost(err error) bool {
	c, ok := code(err)
	return ok && (strings.HasPrefix(c, "08") || strings.HasPrefix(c, "57P"))
}

// sqlState is what pgx's PgError (and lib/pq's Error) have.
type sqlState interface{ SQLState() string }

// sqliteCode is what modernc.org/sqlite's Error has: an extended result
// code, whose low byte is the primary one.
type sqliteCode interface{ Code() int }

// code returns the server's error code in err's chain: a SQLSTATE, the
// Number of a go-sql-driver/mysql MySQLError in decimal, or SQLite's
// primary result code in decimal.
func code(err error) (string, bool) {
	var s sqlState
	if errors.As(err, &s) {
		return s.SQLState(), true
	}
	var c sqliteCode
	if errors.As(err, &c) {
		return strconv.Itoa(c.Code() & 0xff), true
	}
	return mysqlNumber(err)
}

// mysqlNumber finds a *mysql.MySQLError in err's chain and returns its
// Number, without importing the driver.
func mysqlNumber(err error) (string, bool) {
	for _, e := range chain(err) {
		v := reflect.ValueOf(e)
		if v.Kind() != reflect.Pointer || v.IsNil() {
			continue
		}
		v = v.Elem()
		t := v.Type()
		if t.Name() != "MySQLError" || t.PkgPath() != "github.com/go-sql-driver/mysql" {
			continue
		}
		if n := v.FieldByName("Number"); n.IsValid() && n.CanUint() {
			return strconv.FormatUint(n.Uint(), 10), true
		}
	}
	return "", false
}

// chain returns err and every error it wraps, depth first, as errors.As
// visits them.
func chain(err error) []error {
	if err == nil {
		return nil
	}
	list := []error{err}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		list = append(list, chain(u.Unwrap())...)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			list = append(list, chain(e)...)
		}
	}
	return list
}
