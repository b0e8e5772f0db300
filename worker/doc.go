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
// The program opens the *sql.DB with the driver it imports: MySQL or
// MariaDB (github.com/go-sql-driver/mysql), PostgreSQL
// (github.com/jackc/pgx/v5/stdlib) or a SQLite file (modernc.org/sqlite).
// This package imports none, and reads the dialect off the driver
// (Config.Dialect names it where a wrapping driver hides it):
//
//	db, err := sql.Open("mysql", dsn) // or sql.Open("pgx", url), sql.Open("sqlite", dsn)
//	cfg := worker.Config{DB: db}
//	err = worker.EnsureSchema(ctx, cfg) // creates or completes the table
//	l, err := worker.NewLeased(cfg)
//	g, err := cached.New(ctx, cached.Config{Leaser: l})
//	defer g.Close() // gives the ID back
//
// or worker.NewDisposable(cfg) and cached.Config{Assigner: a}. Schema
// returns the table's DDL, Baidu's WORKER_NODE.sql (shipped in this
// package) and four lease columns; EnsureSchema adds what a table of that
// shape lacks and refuses, before any DDL, a table of the name with other
// columns or types. Baidu's rows, and Disposable's, have LEASED 0 and are
// never leased. Each row describes the process that took it (see
// Disposable); List reads the rows back. It logs nothing unless given a
// logger (Config.Logger).
//
// The promise: if holders h1 and then h2 hold a leased worker ID, every
// second h1 ever uses is below every second h2 uses, on every database,
// as long as the database keeps every UPDATE it acknowledged. The proof,
// step by step with the test that fails without each step, is in the
// repository's docs/design.md#the-lease-protocol; what to configure, and
// which failovers keep the guarantee, in docs/leases.md.
package worker
