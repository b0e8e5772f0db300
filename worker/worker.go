// Package worker hands a generator its worker ID from a database table: the
// middle field of every UID, unique to one running process across the whole
// fleet.
//
// Disposable gives each process start a fresh ID, the AUTO_INCREMENT ID of a
// new WORKER_NODE row, as Baidu's DisposableWorkerIdAssigner does, so two
// processes never share one and a restarted process never reuses its old
// one. It is a uidgen.Assigner: pass it as a generator's Config.Assigner.
//
// Leased lends IDs that come back (a uidgen.Leaser): a fleet of N live
// processes holds IDs near 1..N however often it restarts, so worker bits
// need only count the processes alive at once. The lease of an ID also
// reserves the seconds its holder may use, so that the next holder, which
// may come while the last one is paused or cut off from the database, never
// uses a second the last one may have used.
//
// The table's DDL is Baidu's WORKER_NODE.sql, shipped in this package, and
// four lease columns after it: Schema returns the first and LeaseSchema the
// second, and EnsureSchema runs what the table lacks, so a table made by the
// Java project serves this one and the other way round. Rows of Baidu's
// assigner have LEASED 0, as Disposable's have, and are never leased.
//
// # Why two holders of a leased ID never use the same second
//
// The guarantee: if holders h1 and then h2 hold worker ID w, every second
// h1 ever uses is below every second h2 uses. It rests on one fact only:
// the database applies each UPDATE of w's row atomically, one after the
// other, and evaluates its WHERE on the row as the previous UPDATE left it
// (InnoDB does; so does PostgreSQL at READ COMMITTED, its default, which
// evaluates the WHERE again on the newest version of a row it waited for).
// Clocks decide only when a lease counts as expired, and a wrong
// clock costs churn, never a duplicate.
//
// The row of w has OWNER, a random token that only its current holder
// knows; RESERVED_UNTIL, an absolute Unix second; and LEASE_UNTIL, when the
// lease expires by the database's clock. The invariant: every second that
// any holder of w, past or present, may still use is at most RESERVED_UNTIL;
// and every second the holder whose token is in OWNER may use is at least
// its Start. These steps keep it:
//
//  1. A holder uses second s only if s <= Reserved(), and Reserved() rises to
//     t only after an UPDATE with WHERE OWNER = token affected the row and set
//     RESERVED_UNTIL = GREATEST(RESERVED_UNTIL, t). While it holds the row,
//     nothing else changes RESERVED_UNTIL, and GREATEST never lowers it, so
//     the row reserves at least what the holder may use. (Remove GREATEST:
//     TestLeaseRenewsAtPace sees the row fall below Reserved().)
//  2. The renewal also sets LEASE_UNTIL = GREATEST(LEASE_UNTIL + 1, now +
//     TTL), so it always changes the row it matches: zero rows affected
//     means OWNER is no longer the token, whether or not the DSN counts found
//     rows, and Reserved() stops there for good. (Remove the + 1:
//     TestLeaseRenewsAtPace's renewals a millisecond apart report a lost
//     lease. Remove OWNER from the WHERE: TestLeaseLost.)
//  3. A new holder reads the row's RESERVED_UNTIL, r, and takes the row with
//     one UPDATE that sets a fresh 128-bit random token, WHERE the lease has
//     expired AND RESERVED_UNTIL <=> r (IS NOT DISTINCT FROM r on
//     PostgreSQL). The update succeeds only if r is the
//     reservation at the instant of the takeover; from that instant every
//     earlier holder's renewal names a token that is gone (step 2), so by the
//     invariant every second they may ever use is at most r. (Remove the
//     <=> r: TestLeaseConcurrent sees a holder start at or below the last
//     second its predecessor used, the reservation having been released
//     between the read and the update.)
//  4. The new holder starts at max(database now, r + 1): above every second
//     of the earlier holders. (Start at now alone:
//     TestLeaseStartsAboveReservation.)
//  5. Release stops the renewer, then in one UPDATE WHERE OWNER = token sets
//     OWNER NULL, LEASE_UNTIL now and RESERVED_UNTIL max(lastUsed, Start-1).
//     Lowering the reservation is safe because the holder used nothing above
//     lastUsed and the earlier holders nothing above r <= Start-1. OWNER NULL
//     makes any renewal of its still on its way to the server match nothing.
//     (Keep OWNER, or record lastUsed below Start-1: TestLeaseRelease.)
//  6. A new row is inserted with an explicit ID that no row has; the primary
//     key refuses a second insert of it. With no row there was no earlier
//     holder, so the holder starts at the database's now. This is why rows
//     of leased IDs must never be deleted.
//
// Expiry, judged in SQL by the database's clock, only decides whether step
// 3 may take a row: a lease taken while its holder still lives (its clock,
// a pause or a partition kept it from renewing in time) costs that holder
// its lease, and nothing else. The tests that move clients' clocks hours
// away (TestLeaseExpiresByServerClock) check that they change nothing.
//
// A holder that finds its lease lost goes on using the seconds reserved
// before, which step 3 left below its successor's, and then Wait fails with
// uidgen.ErrLeaseLost: a generator must then stop, since a new lease would
// need a new ID. A holder cut off from the database does the same with the
// database's error, but keeps its lease, and renews again once the database
// answers (TestLeaseOutage).
//
// Which free row step 3 takes, and how far ahead step 1 reserves, change
// none of the above: the conditional updates alone keep holders apart.
// They decide what the guarantee costs. Each renewal reserves the seconds a
// holder will use over Config.LeaseHorizon and a third of the TTL, at its
// pace, so a holder cut off from the database, or whose database fails
// over, goes on for the horizon (TestLeaseHorizon, TestLeaseOutage). A
// holder that dies leaves its row reserved up to that far ahead, and a
// takeover starts above it: so a new holder takes the lowest free row whose
// reservation has passed, then a new row, and a row still reserved ahead
// only when no other is free, the one whose reservation ends soonest
// (TestLeaseColdFirst).
//
// # What the database must keep
//
// The proof needs the database to keep every UPDATE it acknowledged. A
// failover that keeps every acknowledged write keeps the guarantee through
// it: PostgreSQL with a synchronous standby (synchronous_commit on), MySQL
// with semi-synchronous replication or Galera, Aurora, Cloud SQL's HA. One
// that may lose acknowledged writes, asynchronous replication, may roll a
// reservation or a takeover back, and then two holders of one ID may use
// the same seconds: their IDs may repeat. Point a fleet at the primary
// through a name that moves with it (pgx takes several hosts in one URL,
// postgres://h1:5432,h2:5432/db?target_session_attrs=read-write); for
// MySQL, set the DSN's timeout, readTimeout and writeTimeout to a few
// seconds, so that a primary that died behind a proxy is noticed in
// seconds rather than at the TCP keepalive's minutes.
//
// The package talks to MySQL (or MariaDB) and to PostgreSQL through
// database/sql, with the same guarantees on both: open the *sql.DB with
// github.com/go-sql-driver/mysql (sql.Open("mysql", dsn)) or with
// github.com/jackc/pgx/v5/stdlib (sql.Open("pgx", dsn)). The package imports
// neither: the program imports the driver it uses, as database/sql's
// convention is, and links no other; the dialect is read off the driver.
// It logs nothing unless given a logger (Config.Logger).
package worker

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/seed4d941b13/uidgen/internal/dialect"
)

// Errors, tested with errors.Is. Every error this package returns starts
// "worker: ", names the operation and the value at fault, and wraps the
// driver's own error where there is one. A context's deadline or
// cancellation is reported wrapping ctx.Err(), so errors.Is(err,
// context.DeadlineExceeded) holds.
var (
	// ErrNilDB: a constructor was given a nil *sql.DB.
	ErrNilDB = dialect.ErrNilDB

	// ErrBadTable: Config.Table, or the table given to Schema, is not a
	// plain SQL identifier.
	ErrBadTable = dialect.ErrBadTable

	// ErrDialect: the *sql.DB was opened with a driver other than
	// go-sql-driver/mysql and pgx's stdlib, or Schema was given a dialect
	// other than "mysql" and "postgres".
	ErrDialect = dialect.ErrDialect

	// ErrContainerEnv: the environment names a container only by halves
	// (a host without a port, a port without a host, a Kubernetes pod
	// without HOSTNAME), or names it with a value too long for its column.
	ErrContainerEnv = errors.New("incomplete container environment")

	// ErrNoHost: an actual host with neither a usable network address nor a
	// host name, so HOST_NAME can not be filled.
	ErrNoHost = errors.New("no host address or name")

	// ErrUnreachable: the database server could not be reached over the
	// network.
	ErrUnreachable = dialect.ErrUnreachable

	// ErrAccessDenied: the server refused the user, its password or its
	// right to use the database or the table.
	ErrAccessDenied = dialect.ErrAccessDenied

	// ErrNoTable: the worker table does not exist. EnsureSchema creates
	// it, or run the DDL that `uidgen schema` prints.
	ErrNoTable = errors.New("worker table missing")

	// ErrNoAutoIncrement: the insert returned no AUTO_INCREMENT ID, so the
	// table's ID column is not Baidu's.
	ErrNoAutoIncrement = errors.New("no AUTO_INCREMENT ID")

	// ErrNoLeaseColumns: the worker table lacks a column that leases need.
	// EnsureSchema adds them, or run the ALTER TABLE statements that
	// `uidgen schema` prints.
	ErrNoLeaseColumns = errors.New("worker table lacks the lease columns")

	// ErrLeaseTTL: Config.LeaseTTL is outside [MinLeaseTTL, MaxLeaseTTL].
	ErrLeaseTTL = errors.New("lease TTL out of range")

	// ErrLeaseHorizon: Config.LeaseHorizon is outside [MinLeaseHorizon,
	// MaxLeaseHorizon].
	ErrLeaseHorizon = errors.New("lease horizon out of range")

	// ErrMaxWorkerID: LeaseWorkerID was given a largest worker ID below 1.
	ErrMaxWorkerID = errors.New("largest worker ID out of range")

	// ErrNoFreeID: every worker ID a lease may take is held, and none came
	// free before the context ended.
	ErrNoFreeID = errors.New("no free worker ID")

	// ErrReleased: a Lease was used after Release.
	ErrReleased = errors.New("lease released")
)

// Config says where the worker table is and how to reach it. NewDisposable,
// NewLeased, EnsureSchema and List take one; each reads the fields that
// concern it. Its zero value, but for DB, means the defaults.
type Config struct {
	// DB is the worker table's database. Required: a MySQL (or MariaDB)
	// database opened with go-sql-driver/mysql (sql.Open("mysql", dsn)),
	// or a PostgreSQL one opened with pgx's stdlib (sql.Open("pgx", dsn)).
	DB *sql.DB

	// Table is the worker table, a plain identifier (see Schema). Empty
	// means DefaultTable.
	Table string

	// Dialect names the SQL dialect, "mysql" or "postgres", where DB's
	// driver does not tell it: go-sql-driver/mysql or pgx's stdlib wrapped
	// in an instrumenting driver of another package. Empty means the
	// dialect is read off the driver, and any driver but those two is an
	// error wrapping ErrDialect.
	Dialect string

	// LeaseTTL is how long a lease of NewLeased lasts without renewal, in
	// [MinLeaseTTL, MaxLeaseTTL]; zero means DefaultLeaseTTL. The renewer
	// renews every third of it, and a holder that died keeps its ID from
	// the fleet for at most this long. Only NewLeased reads it.
	LeaseTTL time.Duration

	// LeaseHorizon is how long a leased holder can go on without the
	// database: every renewal reserves the seconds the holder will use over
	// the horizon and a third of the TTL at its current pace, so a database
	// that does not answer for the whole horizon (a failover, a restart)
	// fails no take. It is in [MinLeaseHorizon, MaxLeaseHorizon]; zero means
	// DefaultLeaseHorizon. The cost is what a crash leaves: the dead
	// holder's ID stays reserved up to a horizon ahead, so the next holder
	// of that ID would start there; LeaseWorkerID takes an ID whose
	// reservation has passed whenever one is free. Reserving does not spend
	// time bits: only seconds handed out do. Only NewLeased reads it.
	LeaseHorizon time.Duration

	// Logger is where each assigned or leased worker ID, each created table
	// or added column, and each release are logged, at level Info, and lost
	// leases and failing renewals, at level Warn. Nil means nothing is
	// logged.
	Logger *slog.Logger

	// LookupEnv reads the environment variables that describe a container
	// (see the package doc); nil means os.LookupEnv. Tests and services that
	// describe their node from configuration supply their own.
	LookupEnv func(name string) (string, bool)
}

// checked is a Config with its defaults filled in, and DB's dialect.
type checked struct {
	Config
	d *dialect.Dialect
}

// check fills in cfg's defaults and finds DB's dialect, without I/O. It
// fails, with an error that names the value, on a nil DB (ErrNilDB),
// another driver or an unknown Dialect (ErrDialect) and a table name that
// is not a plain identifier (ErrBadTable).
func (cfg Config) check() (checked, error) {
	cfg.Table = cmp.Or(cfg.Table, DefaultTable)
	cfg.LeaseTTL = cmp.Or(cfg.LeaseTTL, DefaultLeaseTTL)
	cfg.LeaseHorizon = cmp.Or(cfg.LeaseHorizon, DefaultLeaseHorizon)
	if cfg.LookupEnv == nil {
		cfg.LookupEnv = os.LookupEnv
	}
	d, err := dialect.ForTable(cfg.DB, cfg.Dialect, cfg.Table)
	if err != nil {
		return checked{}, fmt.Errorf("worker: %w", err)
	}
	return checked{cfg, d}, nil
}
