module github.com/seed4d941b13/uidgen

go 1.26.0

require (
	github.com/go-sql-driver/mysql v1.10.1
	golang.org/x/sys v0.49.0
)

require filippo.io/edwards25519 v1.2.0 // indirect
