package worker_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"time"

	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/worker"
)

// Baidu's DDL for the WORKER_NODE table, as `uidgen schema` prints it.
func ExampleSchema() {
	ddl, err := worker.Schema(worker.DefaultTable)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(ddl)
	// Output:
	// CREATE TABLE WORKER_NODE
	// (
	// ID BIGINT NOT NULL AUTO_INCREMENT COMMENT 'auto increment id',
	// HOST_NAME VARCHAR(64) NOT NULL COMMENT 'host name',
	// PORT VARCHAR(64) NOT NULL COMMENT 'port',
	// TYPE INT NOT NULL COMMENT 'node type: ACTUAL or CONTAINER',
	// LAUNCH_DATE DATE NOT NULL COMMENT 'launch date',
	// MODIFIED TIMESTAMP NOT NULL COMMENT 'modified time',
	// CREATED TIMESTAMP NOT NULL COMMENT 'created time',
	// PRIMARY KEY(ID)
	// )
	//  COMMENT='DB WorkerID Assigner for UID Generator',ENGINE = INNODB;
}

// A process takes its worker ID from MySQL once, when its generator is
// built, under a deadline.
func ExampleNewDisposable() {
	db, err := sql.Open("mysql", "root@tcp(127.0.0.1:3306)/test")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := worker.EnsureSchema(ctx, db); err != nil {
		log.Fatal(err)
	}
	assigner, err := worker.NewDisposable(db)
	if err != nil {
		log.Fatal(err)
	}
	g, err := cached.New(ctx, cached.Config{Assigner: assigner})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	fmt.Println("worker ID", g.WorkerID())
}
