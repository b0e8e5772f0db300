module github.com/seed4d941b13/uidgen/bench

go 1.26.0

replace github.com/seed4d941b13/uidgen => ../

require (
	github.com/bwmarrin/snowflake v0.3.0
	github.com/seed4d941b13/uidgen v0.0.0-00010101000000-000000000000
	github.com/sony/sonyflake/v2 v2.2.0
)

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/go-sql-driver/mysql v1.10.1 // indirect
)
