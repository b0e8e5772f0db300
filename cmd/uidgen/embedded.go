package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// dbEnv names the environment variable that stands in for -db.
const dbEnv = "UIDGEN_DB"

// sqlitePrefix starts a -dsn that names a SQLite file.
const sqlitePrefix = "file:"

// defaultDBHelp says where the embedded store is when neither -db nor
// $UIDGEN_DB names it.
const defaultDBHelp = "$XDG_STATE_HOME/uidgen/uidgen.db, else ~/.local/state/uidgen/uidgen.db"

// What a command does with the -db file, for its -h.
const (
	dbMade = "created with its directory"
	dbRead = "read only: it must exist, and is never created or changed"
)

// dbFlag registers -db on fs, into p: the SQLite file that every command
// keeps its worker IDs and segment tags in when no -dsn or store flag says
// otherwise. use is dbMade or dbRead.
func dbFlag(fs *flag.FlagSet, p *string, use string) {
	fs.StringVar(p, "db", os.Getenv(dbEnv), "the SQLite file of worker IDs and segment tags, used when no -dsn or store flag is given;\n"+
		use+" (default $"+dbEnv+", else "+defaultDBHelp+")")
}

// embeddedDSN returns the -dsn of the SQLite file that path names, or of
// the default file where path is "". The file is where the command
// remembers, across restarts, the time each run may have used.
func embeddedDSN(path string) (string, error) {
	if path != "" {
		return sqlitePrefix + path, nil
	}
	if dir := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return sqlitePrefix + filepath.Join(dir, "uidgen", "uidgen.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("%w: no file to keep worker IDs in: %v; name one with -db or $%s", ErrUsage, err, dbEnv)
	}
	return sqlitePrefix + filepath.Join(home, ".local", "state", "uidgen", "uidgen.db"), nil
}

// sqlitePath returns the file that a -dsn of SQLite names, and whether dsn
// names one: "file:/var/lib/uidgen.db" is /var/lib/uidgen.db. Settings
// after a "?" are dropped: the command opens every file with the ones its
// guarantees need (internal/sqlitedb).
func sqlitePath(dsn string) (string, bool) {
	path, ok := strings.CutPrefix(dsn, sqlitePrefix)
	if !ok {
		return "", false
	}
	path, _, _ = strings.Cut(path, "?")
	return path, true
}

// errNoDB says that -db was given where a -dsn or a store chose another
// database.
var errNoDB = errors.New("-db names the SQLite file used when no -dsn or store flag is given")
