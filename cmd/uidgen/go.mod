module github.com/seed4d941b13/uidgen/cmd/uidgen

go 1.26.0

replace (
	github.com/seed4d941b13/uidgen => ../..
	github.com/seed4d941b13/uidgen/metrics => ../../metrics
)

require github.com/seed4d941b13/uidgen v0.0.0-00010101000000-000000000000

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/go-sql-driver/mysql v1.10.1 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
