// Package worker hands a generator its worker ID, the middle field of every
// UID, from a database table (Baidu's WORKER_NODE), so that no two running
// processes of a fleet share one:
//
//   - Disposable, a uidgen.Assigner, gives each process start a fresh ID,
//     never reused, as Baidu's DisposableWorkerIdAssigner does.
//   - Leased, a uidgen.Leaser, lends IDs that come back: N live processes
//     hold IDs near 1..N (near the start of Config.WorkerIDs) however often
//     they restart, so worker bits need only count the processes alive
//     at once.
//
// The program opens the *sql.DB with the driver it imports (this package
// imports none: see Drivers below):
//
//	db, err := sql.Open("mysql", dsn) // or sql.Open("pgx", url)
//	cfg := worker.Config{DB: db}
//	err = worker.EnsureSchema(ctx, cfg) // creates or completes the table
//	l, err := worker.NewLeased(cfg)
//	g, err := cached.New(ctx, cached.Config{Leaser: l})
//	defer g.Close() // gives the ID back
//
// or worker.NewDisposable(cfg) and cached.Config{Assigner: a}. Read Config
// next for the lease's TTL and horizon; then, below, why two holders of a
// leased ID never use the same second and what the database must keep.
//
// # The table
//
// The table's DDL is Baidu's WORKER_NODE.sql, shipped in this package, and
// four lease columns after it: Schema returns both, and EnsureSchema runs
// what the table lacks, so a table made by the Java project serves this one
// and the other way round. EnsureSchema changes no table of another shape:
// one of the name with other columns, or other types, is another program's,
// and it refuses it, naming what differs, before any DDL. Rows of Baidu's assigner have LEASED 0, as
// Disposable's have, and are never leased. Each row describes the process
// that took it, from the environment variables that Disposable's doc lists;
// List reads the rows back.
//
// # Drivers
//
// The package talks to MySQL (or MariaDB), to PostgreSQL and to SQLite files
// through database/sql, with the same guarantees on each: open the *sql.DB
// with github.com/go-sql-driver/mysql (sql.Open("mysql", dsn)), with
// github.com/jackc/pgx/v5/stdlib (sql.Open("pgx", dsn)) or with
// modernc.org/sqlite (sql.Open("sqlite", dsn)). On a SQLite file, every
// holder runs on the file's machine, so a row names its holder's process,
// and a holder that is gone gives its ID back at once rather than after the
// TTL (TestLocalHolderGone). The package imports
// no driver: the program imports the driver it uses, as database/sql's
// convention is, and links no other; the dialect is read off the driver
// (Config.Dialect names it where a wrapping driver hides it). It logs
// nothing unless given a logger (Config.Logger).
//
// # Why two holders of a leased ID never use the same second
//
// The lease of an ID also reserves the seconds its holder may use, so that
// the next holder, which may come while the last one is paused or cut off
// from the database, never uses a second the last one may have used.
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
// its First(). These steps keep it, each naming the test that fails
// without it; TestLeaseConformance//Release is the lease suite's
// (leasetest.Run's) Release subtest on every database, run with
// go test -run 'TestLeaseConformance//Release' ./worker:
//
//  1. A holder uses second s only if s <= Reserved(), and Reserved() rises to
//     t only after an UPDATE with WHERE OWNER = token affected the row and set
//     RESERVED_UNTIL = GREATEST(RESERVED_UNTIL, t). While it holds the row,
//     nothing else changes RESERVED_UNTIL, and GREATEST never lowers it, so
//     the row reserves at least what the holder may use. (Remove GREATEST:
//     TestLeaseConformance//ReservationNeverFalls sees the row fall below
//     a reservation granted earlier.)
//  2. The renewal also sets LEASE_UNTIL = GREATEST(LEASE_UNTIL + 1, now +
//     TTL), so it always changes the row it matches: zero rows affected
//     means OWNER is no longer the token, whether or not the DSN counts found
//     rows, and Reserved() stops there for good. (Remove the + 1:
//     TestLeaseConformance//Pace's renewals a millisecond apart report a
//     lost lease. Remove OWNER from the WHERE: TestLeaseConformance//Lost.)
//  3. A new holder reads the row's RESERVED_UNTIL, r, and takes the row with
//     one UPDATE that sets a fresh 128-bit random token, WHERE the lease has
//     expired AND RESERVED_UNTIL <=> r (IS NOT DISTINCT FROM r on
//     PostgreSQL). The update succeeds only if r is the reservation at the
//     instant of the takeover; from that instant every earlier holder's
//     renewal names a token that is gone (step 2), so by the invariant every
//     second they may ever use is at most r. (Remove the <=> r:
//     TestLeaseConformance//Concurrent sees a holder start at or below the
//     last second its predecessor used, the reservation having been released
//     between the read and the update.)
//  4. The new holder's First() is max(database now, r + 1): above every
//     second of the earlier holders. (Take the database's now alone:
//     TestLeaseConformance//StartsAboveReservation.)
//  5. Release stops the renewer, then in one UPDATE WHERE OWNER = token sets
//     OWNER NULL, LEASE_UNTIL now and RESERVED_UNTIL max(lastUsed,
//     First()-1). Lowering the reservation is safe because the holder used
//     nothing above lastUsed and the earlier holders nothing above
//     r <= First()-1. OWNER NULL makes any renewal of its still on its way
//     to the server match nothing. (Keep OWNER, or record lastUsed below
//     First()-1: TestLeaseConformance//Release.)
//  6. A new row is inserted with an explicit ID that no row has; the primary
//     key refuses a second insert of it. With no row there was no earlier
//     holder, so the holder's First() is the database's now. This is why
//     rows of leased IDs must never be deleted.
//
// Expiry, judged in SQL by the database's clock, only decides whether step 3
// may take a row: a lease taken while its holder still lives (its clock, a
// pause or a partition kept it from renewing in time) costs that holder its
// lease, and nothing else. The tests that move clients' clocks hours away
// (TestLeaseConformance//ExpiryByStoreClock) check that they change nothing.
//
// A holder that finds its lease lost goes on using the seconds reserved
// before, which step 3 left below its successor's, and then Wait fails with
// uidgen.ErrLeaseLost: a generator must then stop, since a new lease would
// need a new ID. A holder cut off from the database does the same with the
// database's error, but keeps its lease, and renews again once the database
// answers (TestLeaseOutage).
//
// Which free row step 3 takes, and how far ahead step 1 reserves, change
// none of the above: the conditional updates alone keep holders apart. They
// decide what the guarantee costs. Each renewal reserves the seconds a
// holder will use over Config.LeaseHorizon and a third of the TTL, at its
// pace, so a holder cut off from the database, or whose database fails over,
// goes on for the horizon (TestLeaseConformance//Horizon, TestLeaseOutage).
// A holder that dies leaves its row reserved up to that far ahead, and a
// takeover starts above it: so a new holder takes the lowest free row whose
// reservation has passed, or passes within ten seconds, by the database's
// clock; then a new row; and a row still reserved ahead only when no other
// is free, the one whose reservation ends soonest
// (TestLeaseConformance//ColdFirst).
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
// The words these docs use, such as tick, run, take, lease and claim,
// mean one thing each, defined in the repository's docs/glossary.md.
package worker
