package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"

	_ "github.com/go-sql-driver/mysql" // MySQL and MariaDB DSNs
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/seed4d941b13/uidgen/internal/sqlitedb"
)

// dsnHelp describes the -dsn flag's value.
const dsnHelp = "a MySQL DSN, e.g. 'root@tcp(127.0.0.1:3306)/test', a PostgreSQL URL, e.g. 'postgres://postgres@127.0.0.1:5432/test',\n" +
	"or a SQLite file, e.g. 'file:/var/lib/uidgen/uidgen.db'"

// dsnForms says what -dsn takes, for an error about one it could not read:
// go-sql-driver/mysql reads "root@127.0.0.1:3306/test" and
// "mysql://root@..." as a network named 127.0.0.1:3306, and says only that.
const dsnForms = "want user:password@tcp(host:port)/database for MySQL, postgres://user:password@host:port/database for PostgreSQL, or file:PATH for SQLite"

// openDB opens dsn with the driver its form names: SQLite for file:PATH,
// pgx for a PostgreSQL URL (postgres:// or postgresql://),
// go-sql-driver/mysql for anything else. A SQLite file is opened, and
// created where missing, at once (sqlitedb.Open); the servers are not
// reached yet. A DSN that does not parse is a usage error.
func openDB(dsn string) (*sql.DB, error) {
	return openDBAs(dsn, false)
}

// openDBAs is openDB, opening a SQLite file read-only with readOnly, as
// the commands that list do: a file they may not write still lists.
func openDBAs(dsn string, readOnly bool) (*sql.DB, error) {
	if path, ok := sqlitePath(dsn); ok {
		if path == "" || path == ":memory:" {
			return nil, fmt.Errorf("%w: SQLite %q: the file is what remembers, across a restart, the time each run used; name a file", ErrUsage, path)
		}
		db, err := sqlitedb.Open(path, readOnly)
		if errors.Is(err, fs.ErrNotExist) && readOnly {
			return nil, fmt.Errorf("%w: SQLite file %s does not exist: nothing has leased from it yet (give -dsn, or -db for another file)", ErrUsage, path)
		}
		return db, err
	}
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			return nil, fmt.Errorf("%w: -dsn: %v; %s", ErrUsage, err, dsnForms)
		}
		return db, nil
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: -dsn: %v; %s", ErrUsage, err, dsnForms)
	}
	return stdlib.OpenDB(*cfg), nil
}

// runLister runs a command that reads the table of -dsn's database: it
// registers -dsn on fs, parses args, opens the database and calls list
// with it under assignTimeout. what says what the database is, for -h.
func runLister(fs *flag.FlagSet, args []string, what string, list func(ctx context.Context, db *sql.DB) error) error {
	dsn := dsnFlag(fs, what)
	var db string
	dbFlag(fs, &db, dbRead)
	if err := parseListerFlags(fs, args); err != nil {
		return err
	}
	if err := dbConflict(fs, *dsn); err != nil {
		return err
	}
	return listTable(*dsn, db, list)
}

// dbConflict returns a usage error where -db is given beside a -dsn, from
// its flag or $UIDGEN_DSN, which chose another database.
func dbConflict(fs *flag.FlagSet, dsn string) error {
	if dsn != "" && setFlag(fs, "db") != "" {
		return fmt.Errorf("%w: -db and -dsn both given: %v", ErrUsage, errNoDB)
	}
	return nil
}

// dsnFlag registers a lister's -dsn on fs; what says what the database is.
func dsnFlag(fs *flag.FlagSet, what string) *string {
	return fs.String("dsn", os.Getenv(dsnEnv), what+" (default $"+dsnEnv+"): "+dsnHelp)
}

// parseListerFlags parses a lister's args into fs, which take no
// arguments besides the flags.
func parseListerFlags(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", ErrUsage, fs.Arg(0))
	}
	return nil
}

// listTable opens dsn's database, or where dsn is "" the SQLite file
// dbPath (-db, or the default), and calls list with it under assignTimeout.
// A SQLite file is opened read-only.
func listTable(dsn, dbPath string, list func(ctx context.Context, db *sql.DB) error) error {
	if dsn == "" {
		var err error
		if dsn, err = embeddedDSN(dbPath); err != nil {
			return err
		}
	}
	db, err := openDBAs(dsn, true)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), assignTimeout)
	defer cancel()
	return list(ctx, db)
}
