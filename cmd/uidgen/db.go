package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strings"

	_ "github.com/go-sql-driver/mysql" // MySQL and MariaDB DSNs
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// dsnHelp describes the -dsn flag's value.
const dsnHelp = "a MySQL DSN, e.g. 'root@tcp(127.0.0.1:3306)/test', or a PostgreSQL URL, e.g. 'postgres://postgres@127.0.0.1:5432/test'"

// openDB opens dsn with the driver its form names: pgx for a PostgreSQL URL
// (postgres:// or postgresql://), go-sql-driver/mysql for anything else.
// Neither connects yet; a DSN that does not parse is a usage error.
func openDB(dsn string) (*sql.DB, error) {
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			return nil, fmt.Errorf("%w: -dsn: %v", ErrUsage, err)
		}
		return db, nil
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: -dsn: %v", ErrUsage, err)
	}
	return stdlib.OpenDB(*cfg), nil
}

// runLister runs a command that reads the table of -dsn's database: it
// registers -dsn on fs, parses args, opens the database and calls list
// with it under assignTimeout. what says what the database is, for -h.
func runLister(fs *flag.FlagSet, args []string, what string, list func(ctx context.Context, db *sql.DB) error) error {
	dsn := dsnFlag(fs, what)
	if err := parseListerFlags(fs, args); err != nil {
		return err
	}
	return listTable(*dsn, list)
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

// listTable opens dsn's database and calls list with it under
// assignTimeout.
func listTable(dsn string, list func(ctx context.Context, db *sql.DB) error) error {
	if dsn == "" {
		return fmt.Errorf("%w: -dsn (or $%s) is required", ErrUsage, dsnEnv)
	}
	db, err := openDB(dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), assignTimeout)
	defer cancel()
	return list(ctx, db)
}
