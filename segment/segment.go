package segment

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/internal/defaults"
	"github.com/seed4d941b13/uidgen/internal/dialect"
	"github.com/seed4d941b13/uidgen/internal/ring"
	"github.com/seed4d941b13/uidgen/padding"
	"github.com/seed4d941b13/uidgen/ringbuffer"
)

// The limits of a Config's fields; its defaults are in internal/defaults,
// which package serial and the command read too.
const (
	// stepLimit is the highest Config.MaxStep: 2^40 numbers, so that
	// max_id stays far below overflowing.
	stepLimit = 1 << 40

	// maxStart is the highest Config.Start: it leaves room for a billion
	// largest ranges below math.MaxInt64.
	maxStart = 1 << 62
)

// Errors, tested with errors.Is. Every error this package returns starts
// "segment: " and names the value at fault. The errors package worker
// returns too are the root package's: uidgen.ErrConfig (Config.DB is nil,
// Config.Table is not a plain identifier, the DB's driver is not MySQL's,
// pgx's or SQLite's, or a field is outside its limits: see New),
// uidgen.ErrUnreachable (the database server could not be reached),
// uidgen.ErrAccessDenied (the server refused the user or a statement) and
// uidgen.ErrNoTable (the tag table does not exist; EnsureSchema creates it).
// Those below are this package's alone.
var (
	// ErrNoTag: Lookup found no row for Config.Tag; New would create it.
	ErrNoTag = errors.New("no such tag")

	// ErrBadTag: Config.Tag is empty, longer than 128 bytes, or has a
	// character other than letters, digits and . _ - :. It is not
	// uidgen.ErrConfig because a tag is often a caller's input rather than
	// a Config: a server that takes tags in requests (uidgen serve) answers
	// ErrBadTag as the request's fault, and uidgen.ErrConfig as its own.
	ErrBadTag = errors.New("bad tag")

	// ErrTagGone: the tag's row is no longer in the table, or its max_id
	// went back below a range this generator claimed, as when the row is
	// deleted and made again. The generator stops claiming: handing out
	// numbers from a row that forgot what it handed out would repeat them.
	// Never delete a tag's row while its numbers are in use.
	ErrTagGone = errors.New("tag row gone or moved back")
)

// Config says how to build a Generator. DB and Tag are required; the other
// zero values mean the defaults.
type Config struct {
	// DB is the database of the table, opened with go-sql-driver/mysql
	// (sql.Open("mysql", dsn)), pgx's stdlib (sql.Open("pgx", url)) or
	// modernc.org/sqlite (sql.Open("sqlite", dsn)).
	DB *sql.DB

	// Dialect names the SQL dialect, "mysql", "postgres" or "sqlite", where DB's
	// driver does not tell it (a driver wrapped by an instrumenting driver
	// of another package). By default it is read off the driver.
	Dialect string

	// Tag is the business tag, leaf_alloc's biz_tag: 1 to 128 letters,
	// digits and . _ - :. MySQL's default collation compares it without
	// case, so "Order" and "order" share a row there; on PostgreSQL they
	// are two: use one spelling.
	Tag string

	// Table is the tag table, DefaultTable by default.
	Table string

	// Start is the least number the tag hands out, at most 2^62: a tag that
	// New creates starts there (1 by default), and a tag whose max_id is
	// below it is moved up to it; a tag at or above it is left as it is.
	// Set it to move a table off AUTO_INCREMENT: above its current maximum.
	// It may stay in a service's config: every process of a fleet, and
	// every restart, gets the same numbers above it.
	Start int64

	// Step is the step of a tag that New creates, 1 to 2^31-1 (the step
	// column is an INT), 2000 by default (Leaf's example rows); a tag that
	// exists keeps its own. The step is the smallest range a claim takes.
	Step int64

	// MaxStep is the largest range a claim takes, 2,000,000 by default, and
	// so what a crash loses: a process killed while it takes flat out held
	// at most about 1.5 × MaxStep numbers. It must not be below the tag's
	// step, nor above 2^40. Above MaxStep numbers per ClaimEvery, claims
	// come more often than ClaimEvery and the horizon below shrinks to half
	// a MaxStep at the rate.
	MaxStep int64

	// ClaimEvery is how long a range is sized to last at the rate numbers are
	// handed out, 5 minutes by default, not negative. The next range is claimed
	// while half of one is left, so a database down for less than ClaimEvery/2
	// fails no take; a crash loses up to about 1.5 × ClaimEvery of numbers at
	// the rate, never more than about 1.5 × MaxStep.
	ClaimEvery time.Duration

	// Description is written to a tag New creates.
	Description string

	// RingSize is the most numbers the ring holds, a power of two from 2
	// to 2^24, 65,536 by default.
	RingSize int

	// RejectedTake decides what NextID does when the ring is empty. Nil
	// means ringbuffer.Wait(time.Second): wait while the padder refills,
	// and fail only once it has put nothing for a second.
	RejectedTake ringbuffer.TakePolicy

	// Clock times the claims, to size them. Nil means uidgen.SystemClock().
	Clock uidgen.Clock

	// Logger, where not nil, is told of each claim and return at level
	// Debug, and of failing claims at level Warn.
	Logger *slog.Logger
}

// claimTimeout bounds one claim or return statement.
const claimTimeout = 10 * time.Second

// Generator hands out the numbers of one tag from a ring that a padding
// goroutine keeps full. It is safe for concurrent use. Build one with New and
// stop it with Close.
type Generator struct {
	ring   *ring.Ring // the ringbuffer.Ring the padder fills
	src    *ranges
	padder *padding.Executor

	closed    atomic.Bool // set once, by Close; read by every NextID
	closeOnce sync.Once
	closeErr  error
}

// errNextIDClosed is what NextID returns after Close, made once so that the
// check costs no allocation.
var errNextIDClosed = fmt.Errorf("segment: next ID: %w", uidgen.ErrClosed)

// New checks cfg, creates the tag if it is missing, claims the first range
// under ctx, fills the ring and starts the padding and claiming goroutines.
// Every field is checked before anything is written. Errors start "segment: "
// and wrap ErrBadTag or, naming the field, its value and its limits,
// uidgen.ErrConfig for a bad Config: no DB, a dialect or table name it
// cannot use, a Step, MaxStep, ClaimEvery, Start or RingSize outside the
// limits its doc gives, a MaxStep below the step of the tag's row, or a
// table of another shape than Leaf's, refused as EnsureSchema refuses it
// before anything is written. They wrap
// uidgen.ErrNoTable when the table is missing, and otherwise the database's
// error (uidgen.ErrUnreachable, uidgen.ErrAccessDenied, ctx.Err()).
func New(ctx context.Context, cfg Config) (*Generator, error) { return newGenerator(ctx, cfg, true) }

// Lookup is New for a tag that must exist already: a service that hands out
// the numbers of the tags an operator made, and no others, opens each with
// Lookup. It fails with an error wrapping ErrNoTag, having written
// nothing, when the tag has no row; its other errors are New's. Config.Step
// is the step of a tag New creates, so Lookup ignores it; Config.Start
// still moves the tag up.
func Lookup(ctx context.Context, cfg Config) (*Generator, error) {
	return newGenerator(ctx, cfg, false)
}

// newGenerator is New, and Lookup where create is false.
func newGenerator(ctx context.Context, cfg Config, create bool) (*Generator, error) {
	c, err := check(cfg)
	if err == nil {
		// A missing table is left to the claim to report, as ErrNoTable.
		_, err = tagShape.check(ctx, c, c.Table)
	}
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	c.create = create
	rb, err := ringbuffer.New(ringbuffer.Config{Size: c.ringSize, RejectedTake: cfg.RejectedTake})
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	src, err := start(ctx, c, rb)
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	padder, err := padding.New(padding.Config{Ring: rb, Source: src})
	if err != nil {
		src.stop()
		return nil, fmt.Errorf("segment: %w", err)
	}
	return &Generator{ring: (*ring.Ring)(rb), src: src, padder: padder}, nil
}

// config is a checked Config with its defaults filled in.
type config struct {
	Config
	d        *dialect.Dialect
	ringSize int
	create   bool // a missing tag is created (New), not an error (Lookup)
}

// checkTable fills in cfg's Table and finds DB's dialect, checking the
// fields that every call touching the table reads: DB, Dialect and Table.
func (cfg Config) checkTable() (config, error) {
	cfg.Table = cmp.Or(cfg.Table, DefaultTable)
	d, err := dialect.ForTable(cfg.DB, cfg.Dialect, cfg.Table)
	if err == nil {
		// The numbers given back go to a second table whose name is longer:
		// a Table the server keeps whole may still make one it cuts.
		if err = d.CheckTable(returnedTable(cfg.Table)); err != nil {
			err = fmt.Errorf("%w: the table of numbers given back, beside Table %q", err, cfg.Table)
		}
	}
	return config{Config: cfg, d: d}, err
}

// theDefault says " (the default)" of a value a zero field took.
func theDefault(zero bool) string {
	if zero {
		return " (the default)"
	}
	return ""
}

// check returns cfg with its defaults, or the first thing wrong with it.
func check(cfg Config) (config, error) {
	c, err := cfg.checkTable()
	if err != nil {
		return c, err
	}
	if err := checkTag(c.Tag); err != nil {
		return c, err
	}
	c.Step = cmp.Or(c.Step, defaults.SegmentStep)
	c.MaxStep = cmp.Or(c.MaxStep, defaults.SegmentMaxStep)
	c.ClaimEvery = cmp.Or(c.ClaimEvery, defaults.SegmentClaimEvery)
	switch {
	case c.Step < 1 || c.Step > 1<<31-1:
		return c, fmt.Errorf("%w: Step %d: want 1 to %d (the step column is an INT)", uidgen.ErrConfig, c.Step, 1<<31-1)
	case c.MaxStep < c.Step:
		return c, fmt.Errorf("%w: MaxStep %d%s is below Step %d%s: want MaxStep at least Step", uidgen.ErrConfig,
			c.MaxStep, theDefault(cfg.MaxStep == 0), c.Step, theDefault(cfg.Step == 0))
	case c.MaxStep > stepLimit:
		return c, fmt.Errorf("%w: MaxStep %d: want at most 2^40 (%d)", uidgen.ErrConfig, c.MaxStep, int64(stepLimit))
	case c.ClaimEvery < 0:
		return c, fmt.Errorf("%w: ClaimEvery %v: want 0 (meaning %s) or more", uidgen.ErrConfig, c.ClaimEvery, defaults.Duration(defaults.SegmentClaimEvery))
	case c.Start < 0 || c.Start > maxStart:
		return c, fmt.Errorf("%w: Start %d: want 0 (meaning 1) to 2^62", uidgen.ErrConfig, c.Start)
	}
	c.ringSize = cmp.Or(c.RingSize, defaults.SegmentRingSize)
	if c.ringSize < 2 || c.ringSize > defaults.RingMaxSize || bits.OnesCount(uint(c.ringSize)) != 1 {
		return c, fmt.Errorf("%w: RingSize %d: want a power of two from 2 to %d", uidgen.ErrConfig, c.RingSize, defaults.RingMaxSize)
	}
	if c.Clock == nil {
		c.Clock = uidgen.SystemClock()
	}
	return c, nil
}

// NextID returns the next number. Numbers from one goroutine increase.
//
// It fails with an error wrapping uidgen.ErrClosed after Close, and on an
// empty ring with whatever the RejectedTake policy returns: by default, once
// the padder has put nothing for a second, an error wrapping
// ringbuffer.ErrEmpty and why the padder had nothing, such as the
// database's error (uidgen.ErrUnreachable). It never returns a number twice.
func (g *Generator) NextID() (int64, error) {
	if g.closed.Load() {
		return 0, errNextIDClosed
	}
	n, miss, off := g.ring.TakeFast()
	if miss != nil {
		var err error
		if n, err = g.ring.TakeMiss(miss, off); err != nil {
			return 0, fmt.Errorf("segment: next ID: %w", err)
		}
	}
	return n, nil
}

// NextIDs fills dst with numbers, in increasing order, claiming as many as
// a run of the ring holds with each atomic add, and returns len(dst). On an
// error it returns how many it filled and the error, as NextID would, and
// leaves dst past them zero.
func (g *Generator) NextIDs(dst []int64) (int, error) {
	if g.closed.Load() {
		return 0, fmt.Errorf("segment: next IDs: %w", uidgen.ErrClosed)
	}
	n, err := g.ring.TakeAll(dst)
	if err != nil {
		return n, fmt.Errorf("segment: next IDs: %w", err)
	}
	return n, nil
}

// Close stops the padding and claiming goroutines and gives back what the
// generator took and did not hand out: through max_id when no other process
// has claimed since its last claim, and otherwise to the returned table,
// for later claims (see docs/design.md); so a clean restart loses no
// number. NextID then fails with uidgen.ErrClosed. With the database down,
// Close returns within about 3 seconds (a second for a claim on its way,
// two for the give-back) and the numbers it held are lost. Close is
// idempotent and safe to call concurrently; it returns the give-back's
// error, the same to every call.
func (g *Generator) Close() error {
	g.closeOnce.Do(func() {
		g.closed.Store(true)
		g.padder.Close()
		g.ring.Seal(uidgen.ErrClosed)
		g.src.stop()
		// Take what the ring still holds, so that no take in flight hands
		// out a number given back. A take in flight may claim values
		// between two of these batches, or after the last: drained holds
		// the runs of numbers taken here, which the ring's increasing
		// values show.
		var drained []span
		var buf [512]int64
		for {
			n, err := g.ring.TakeN(buf[:])
			for _, v := range buf[:n] {
				if k := len(drained) - 1; k >= 0 && drained[k].end == v {
					drained[k].end++
				} else {
					drained = append(drained, span{v, v + 1})
				}
			}
			if err != nil {
				break
			}
		}
		if err := g.src.giveBack(drained); err != nil {
			g.closeErr = fmt.Errorf("segment: close: %w", err)
		}
	})
	return g.closeErr
}

// Stats is a snapshot of a Generator's ring, padder and claims.
type Stats struct {
	// Stats is the ring's: its values are the tag's numbers, Taken those
	// handed out. A number does not go stale, so Stale stays 0.
	ringbuffer.Stats

	Fills        int64     // padder fills: at start, and per wake-up
	Claims       int64     // ranges claimed from the table
	ClaimsFailed int64     // claim statements that failed
	ClaimSize    int64     // numbers the last claim took
	Pending      int64     // numbers claimed and not yet in the ring
	LastClaim    time.Time // when the last claim was sized (Config.Clock)
	Reused       int64     // ranges taken from the numbers other generators gave back
}

// Stats returns a snapshot of g. Under load the fields are read one at a
// time, so they describe nearby instants, not one.
func (g *Generator) Stats() Stats {
	st := g.src.stats()
	st.Stats = ringbuffer.Stats(g.ring.Stats())
	st.Fills = g.padder.Fills()
	return st
}
