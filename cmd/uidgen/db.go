package main

import (
	"database/sql"
	"fmt"
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
			return nil, fmt.Errorf("%w: -dsn: %v", errUsage, err)
		}
		return db, nil
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: -dsn: %v", errUsage, err)
	}
	return stdlib.OpenDB(*cfg), nil
}
