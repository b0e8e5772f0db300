// Package bench measures uidgen against the cheapest counters there are
// (a bare atomic counter, a mutex counter), against its own baseline
// (defaultgen) and against the Go generators people use instead:
// github.com/bwmarrin/snowflake and github.com/sony/sonyflake/v2; and what a
// worker ID leased from MariaDB, from PostgreSQL and from a SQLite file
// costs the cached generator, and what a renewal of the lease costs each,
// which needs the servers at $UIDGEN_MYSQL_DSN (by default
// root@tcp(127.0.0.1:3306)/test) and $UIDGEN_POSTGRES_DSN (by default
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable), each skipped
// without its server, and a file of the benchmark's own; and the segment
// generator's takes beside the cached generator's, with its claims flat
// out, idle and one number a claim, on the same databases; and what
// uidgen.Opaque's Hide, Reveal and Format cost beside NextID, ten bare AES
// blocks and a UUIDv4 from github.com/google/uuid.
// Beside the benchmarks, formats_test.go holds uidgen's named layouts to
// the peers' own decoders: each reads the other's IDs field for field.
//
// It is a module of its own, so that the peers it imports never enter
// uidgen's go.mod. Run the suite, its comparison and its plot with
//
//	bash bench/run.sh
//
// which writes RESULTS.md and ids-per-second.png beside this file.
package bench
