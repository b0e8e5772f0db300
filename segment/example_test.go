package segment_test

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "github.com/go-sql-driver/mysql" // sql.Open("mysql", ...)

	"github.com/seed4d941b13/uidgen/segment"
)

// Dense numbers for one tag, from Leaf's leaf_alloc table on MySQL. The same
// code runs on PostgreSQL with the *sql.DB of
// sql.Open("pgx", "postgres://postgres@127.0.0.1:5432/test"). A tag that is
// missing is created at 1; numbers claimed and not handed out go back to
// the table at Close, so the next run goes on from the last number used.
func Example() {
	db, err := sql.Open("mysql", "root@tcp(127.0.0.1:3306)/test")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	cfg := segment.Config{DB: db, Tag: "order"}
	if err := segment.EnsureSchema(ctx, cfg); err != nil {
		fmt.Println(err)
		return
	}
	g, err := segment.New(ctx, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()

	first, err := g.NextID()
	if err != nil {
		fmt.Println(err)
		return
	}
	next := make([]int64, 3)
	if _, err := g.NextIDs(next); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("dense:", next[0] == first+1 && next[1] == first+2 && next[2] == first+3)
	// Output:
	// dense: true
}
