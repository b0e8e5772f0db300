package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cmd/uidgen/internal/serve"
	"github.com/seed4d941b13/uidgen/segment"
)

const serveSynopsis = `serve [-addr HOST:PORT] [-generator cached|default] [-shutdown-timeout D] [-opaque-key FILE]
             [-token-file FILE [-metrics-open]] [-tls-cert FILE -tls-key FILE [-client-ca FILE]]
             [[-db FILE] [-worker ID] | -dsn DSN [-lease] | -etcd ENDPOINTS [-etcd-prefix P] | -redis URL [-redis-prefix P]]
             [-segment-table NAME] [-max-tags N] [-create-tags] [-serial NAME=PATTERN ... [-tz ZONE]]
             [-lease-ttl D] [-lease-horizon D] [-worker-ids LO-HI] [-layout NAME | layout flags] [-after ID]

Serves IDs over HTTP, for services in any language:

  GET /id             one new ID, as text
  GET /ids?n=N        N new IDs, 1 <= N <= 10000: a JSON array of strings, or
                      one per line when the Accept header prefers text/plain
  GET /id?opaque=1, /ids?n=N&opaque=1
                      as /id and /ids, each ID's opaque text in its place, as
                      1_8532075140237461187, which uidgen parse -opaque-key
                      reads back; 400 without -opaque-key
  GET /parse/{uid}    the ID taken apart, as JSON with string numbers
  GET /healthz        200 while IDs can be had (it takes one), 503 and why otherwise
  GET /metrics        Prometheus metrics of the generator, and of each tag served
  GET /               a status page for a person, where Accept prefers text/html
                      (a browser): the worker ID, its lease, the ring, each tag

It leases its worker ID from the SQLite file of -db (the default), from
-dsn's database, or from etcd or Redis. With the file or -dsn it also serves
the dense numbers of the segment tags in the leaf_alloc table there
(-segment-table), as gen -segment does:

  GET /segment/{tag}          the tag's next number, as text
  GET /segment/{tag}/ids?n=N  N numbers of the tag, as /ids gives IDs
  GET /segments               each tag served: its ring, claims and numbers held, as JSON

  GET /serial/{name}          the next serial number of -serial NAME=PATTERN, as text
  GET /serial/{name}/ids?n=N  N of them, as /ids gives IDs

Each -serial's numbers restart each period its pattern's dates name
(ORD-{yyyy}{MM}{dd}-{seq:6}: each day, in -tz's zone, UTC by default), from the tags NAME:<date> of the same table (docs/serial.md).

A tag is served only if its row is in the table, unless -create-tags; its
generator opens on its first request, up to -max-tags of them, and gives
its unused numbers back at exit. An unknown tag gets 404, a tag past
-max-tags or a failing database 503; with etcd or Redis, which keep no
tags, these routes answer 501.

Meituan Leaf's leaf-server routes answer as leaf-server does, so that its
clients need only a new host name: the number as text, or status 500 and
Spring Boot's JSON error body (message "Result{id=-2, status=EXCEPTION}"
for a tag not in the table, "Result{id=-3, status=EXCEPTION}" for a failure):

  /api/segment/get/{key}      the next number of tag key
  /api/snowflake/get/{key}    an ID of the generator, as /id (key ignored);
                              Leaf's own layout with -layout leaf
  /decodeSnowflakeId?snowflakeId=ID
                              ID taken apart in Leaf's layout, as Leaf's JSON

Anyone who reaches the port can spend IDs, segment numbers and worker-ID
time: beyond 127.0.0.1, ask who calls. With -token-file every request needs
"Authorization: Bearer TOKEN" with a token of the file (two while clients
move from an old token to a new); without one it gets 401, and is served
nothing. -tls-cert and -tls-key serve HTTPS, and -client-ca refuses, in the
handshake, a client without a certificate its CAs signed; with -token-file
too, a request needs both. -metrics-open leaves /metrics open to a scraper
without a token. The status page asks a browser for a token as well: reach
it through a proxy that adds the header, or with a client certificate. An
address beyond loopback with neither -token-file nor -client-ca starts with
a warning.

Bad input gets a 4xx status and a JSON body {"error": "..."} saying what was
wrong. It prints the address it listens on to stderr. SIGTERM or SIGINT stops
it: it stops accepting, lets requests in flight finish (up to
-shutdown-timeout), gives each tag's unused numbers and a leased worker ID
back and exits 0.`

// serveFlags are serve's flags.
type serveFlags struct {
	fs        *flag.FlagSet
	addr      string
	generator string
	grace     time.Duration
	tags      tagFlags
	maker     makerFlags
	keys      opaqueFlag
	auth      authFlags
}

func runServe(args []string, _, stderr io.Writer, store leaseStore) error {
	var f serveFlags
	f.register(newFlagSet("serve", serveSynopsis, "uidgen serve -addr 127.0.0.1:8080 -worker 3\n"+
		"  uidgen serve -addr 127.0.0.1:8080 -dsn 'root@tcp(127.0.0.1:3306)/test' -lease   # and the tags of leaf_alloc\n"+
		"  uidgen serve -addr :8443 -worker 3 -token-file tokens -tls-cert cert.pem -tls-key key.pem   # on an open network", stderr), store)
	if err := parseFlags(f.fs, args); err != nil {
		return err
	}
	tagDSN, err := f.check()
	if err != nil {
		return err
	}
	hide, err := f.keys.opaque(&f.maker.layout)
	if err != nil {
		return err
	}
	tokens, tlsCfg, err := f.auth.load()
	if err != nil {
		return err
	}
	ctx, stop := stopContext() // before the worker ID is assigned, which a signal must not leak
	defer stop()
	g, tags, closeAll, err := openServed(&f.maker, &f.tags, f.generator, tagDSN)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return errors.Join(fmt.Errorf("%w: -addr %s: %v", ErrUsage, f.addr, err), closeAll())
	}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	h := serve.New(serve.Config{Generator: g.served, Metrics: g.metrics, Tags: tags, Opaque: hide, Tokens: tokens, MetricsOpen: f.auth.metricsOpen})
	f.auth.announce(stderr, ln.Addr(), len(tokens)) // first, so that a caller who waits for the address has read its warnings
	f.announce(stderr, ln.Addr(), g, tags, hide)
	// Run returns once no request runs, so none can find a generator
	// closed, and each tag's generator gives back all it did not hand out.
	if err := errors.Join(serve.Run(ctx, ln, h, f.grace, log.New(stderr, "uidgen serve: ", 0)), closeAll()); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "uidgen serve: stopped")
	return nil
}

// stopContext returns a context that SIGTERM or SIGINT cancels, and the
// func that stops its relaying signals. Signals that arrive while the
// worker ID is assigned wait for the server to start, then stop it: a
// leased ID is given back either way. Once one has come, stop makes a
// second end the process at once, as by default.
func stopContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

func (f *serveFlags) register(fs *flag.FlagSet, store leaseStore) {
	f.fs = fs
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on; port 0 picks a free port")
	fs.StringVar(&f.generator, "generator", "cached", "cached (the ring) or default (per-call Snowflake)")
	fs.DurationVar(&f.grace, "shutdown-timeout", 10*time.Second, "on SIGTERM or SIGINT, how long requests in flight may take to finish")
	f.tags.register(fs)
	f.maker.register(fs, store)
	f.maker.registerMaxAhead(fs, "")
	f.auth.register(fs)
	f.keys.register(fs, "answer /id?opaque=1 and /ids?n=N&opaque=1 with each ID's opaque text, in decimal,\n"+
		"which hides its time, worker and order from those without the keys of `FILE`:")
}

// check refuses arguments and bad flags, and returns the DSN of the tag
// table, "" where the worker ID comes from a lease store that keeps none.
func (f *serveFlags) check() (string, error) {
	switch {
	case f.fs.NArg() > 0:
		return "", fmt.Errorf("%w: unexpected argument %q", ErrUsage, f.fs.Arg(0))
	case f.grace <= 0:
		return "", fmt.Errorf("%w: -shutdown-timeout %v: must be more than 0", ErrUsage, f.grace)
	case f.tags.maxTags < 1:
		return "", fmt.Errorf("%w: -max-tags %d: must be 1 or more", ErrUsage, f.tags.maxTags)
	}
	if err := f.auth.check(); err != nil {
		return "", err
	}
	tagDSN, err := f.maker.worker.tagDSN()
	if err != nil {
		return "", err
	}
	return tagDSN, f.tags.check(f.fs, tagDSN, f.maker.worker.store.Flag())
}

// announce says on stderr where serve listens and what it serves.
func (f *serveFlags) announce(stderr io.Writer, addr net.Addr, g maker, tags *serve.Tags, hide *uidgen.Opaque) {
	fmt.Fprintf(stderr, "uidgen serve: listening on %s (%s generator, worker ID %d)\n", addr, f.generator, g.served.WorkerID())
	if tags != nil {
		fmt.Fprintf(stderr, "uidgen serve: serving up to %d segment tags of table %s\n", f.tags.maxTags, f.tags.table)
	}
	if hide != nil {
		fmt.Fprintf(stderr, "uidgen serve: hiding the IDs of opaque=1 under key %d of %s\n", hide.Keys(), f.keys.file)
	}
}

// openServed opens the generator the flags name, and where tagDSN names
// a database the tags served from it, and returns them and the func that
// closes them all.
func openServed(mf *makerFlags, tf *tagFlags, generator, tagDSN string) (maker, *serve.Tags, func() error, error) {
	g, err := mf.open(generator)
	if err != nil {
		return maker{}, nil, nil, err
	}
	if tagDSN == "" {
		return g, nil, g.close, nil
	}
	tags, closeTags, err := tf.open(tagDSN)
	if err != nil {
		return maker{}, nil, nil, errors.Join(err, g.close())
	}
	return g, tags, func() error { return errors.Join(closeTags(), g.close()) }, nil
}

// tagFlags are serve's flags of the segment tags and serial numbers it
// hands out from the tag table.
type tagFlags struct {
	table   string
	maxTags int
	create  bool
	claims  claimFlags
	serials serialSpecs
	zone    zoneFlag
}

// tagFlagNames are the flags that need a tag table.
var tagFlagNames = append([]string{"segment-table", "max-tags", "create-tags", "serial"}, claimFlagNames...)

func (t *tagFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.table, "segment-table", segment.DefaultTable, "the table of the segment tags served")
	fs.IntVar(&t.maxTags, "max-tags", serve.DefaultMaxTags, "the most tags served; each holds its numbers as a few ranges, a few KiB, and two goroutines")
	fs.BoolVar(&t.create, "create-tags", false, "serve tags not in the table too, creating their rows (and the table)")
	t.claims.register(fs, "of a segment tag")
	t.serials = serialSpecs{}
	fs.Var(t.serials, "serial", "serve GET /serial/NAME: serial numbers of `NAME=PATTERN` that restart each period of its dates (repeatable):\n"+patternHelp)
	t.zone.register(fs, serialDates)
}

// check refuses a -tz that names no zone, and the flags that have no
// table to act on: tagDSN is "" where store, a lease store's flag, keeps
// the worker ID instead.
func (t *tagFlags) check(fs *flag.FlagSet, tagDSN, store string) error {
	if err := checkRules(fs, flagRule{flag: "tz", needs: "serial", why: "it is the zone of the serial numbers' dates"}); err != nil {
		return err
	}
	if _, err := t.zone.loc(); err != nil {
		return err
	}
	if name := setFlag(fs, tagFlagNames...); name != "" && tagDSN == "" {
		return fmt.Errorf("%w: -%s needs -dsn or -db: the tags live in a table, not in %s", ErrUsage, name, "-"+store)
	}
	return nil
}

// open serves the tags of the table in dsn's database, and -serial's
// serials there. It returns them and a func that closes them and the
// database.
func (t *tagFlags) open(dsn string) (*serve.Tags, func() error, error) {
	db, err := openDB(dsn)
	if err != nil {
		return nil, nil, err
	}
	base := segment.Config{DB: db, Table: t.table, Description: "made by uidgen serve"}
	t.claims.apply(&base)
	serials, err := t.openSerials(base)
	if err != nil {
		return nil, nil, errors.Join(err, db.Close())
	}
	loc, _ := t.zone.loc() // check found it good
	tags, err := serve.NewTags(serve.TagsConfig{Segment: base, MaxTags: t.maxTags, Create: t.create, Serials: serials, Zone: loc})
	if err != nil {
		return nil, nil, errors.Join(segmentUsage(err), serials.Close(), db.Close())
	}
	return tags, func() error { return errors.Join(tags.Close(), db.Close()) }, nil
}

// openSerials opens a Segment serial per -serial on base's table, each on
// the tags NAME:<date>. It closes what it opened where one fails.
func (t *tagFlags) openSerials(base segment.Config) (serve.Serials, error) {
	if len(t.serials) == 0 {
		return nil, nil
	}
	out := make(serve.Serials, len(t.serials))
	for _, name := range slices.Sorted(maps.Keys(t.serials)) {
		seg := base
		seg.Tag, seg.Description = name, "made by uidgen serve -serial"
		cfg, _ := t.zone.serialConfig(seg, t.serials[name]) // check found the zone good
		ctx, cancel := context.WithTimeout(context.Background(), assignTimeout)
		g, err := newSerial(ctx, cfg)
		cancel()
		if err != nil {
			return nil, errors.Join(fmt.Errorf("-serial %s=%s: %w", name, t.serials[name], err), out.Close())
		}
		out[name] = serve.Serial{Pattern: t.serials[name], Gen: g}
	}
	return out, nil
}
