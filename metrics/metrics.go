// Package metrics exports a uidgen generator's Stats to Prometheus:
//
//	prometheus.MustRegister(metrics.NewCached(g)) // NewDefault, NewSegment
//
// Only a program that imports this package links the Prometheus client: one
// that imports cached or defaultgen alone links neither it nor any database
// driver (the module's dependency test checks). A Collector reads the
// generator's Stats once per scrape and costs the generator nothing between
// scrapes.
//
// The metrics are prefixed uidgen_: the common ones (ids_total,
// takes_waited_total, takes_failed_total, ahead_seconds, worker_id,
// time_exhausted_timestamp_seconds); for the cached and segment generators,
// their ring and padder (ring_size, ring_available, padder_fills_total, and
// for cached stale_ids_total and clock_wait_seconds_total); for segment,
// its claims (segment_claims_total, segment_claims_failed_total,
// segment_claim_size, segment_pending,
// segment_last_claim_timestamp_seconds), without ahead_seconds, worker_id
// and the time bits, which dense numbers do not have; and with a leased
// worker ID, lease_remaining_seconds, reservation_remaining_seconds and
// lease_lost. The repository's docs/operations.md says what each means and
// which to alert on.
//
// There is a constructor per generator, NewCached, NewDefault and
// NewSegment, rather than one over an interface: the generators' Stats
// differ (only cached and segment have a ring), and each constructor fixes
// the set of metrics it describes. To tell several generators in one
// process apart, register each Collector through
// prometheus.WrapRegistererWith with a label of your own.
package metrics

import (
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/cached"
	"github.com/seed4d941b13/uidgen/defaultgen"
	"github.com/seed4d941b13/uidgen/segment"
)

// snapshot is what one scrape reads of either generator's Stats.
type snapshot struct {
	taken, waited, failed int64
	ahead                 time.Duration

	// The cached generator's ring and padder; zero for defaultgen.
	size, available, fills, stale int64
	clockWait                     time.Duration

	// The segment generator's claims; zero for the others.
	claims, claimsFailed, claimSize, pending int64
	lastClaim                                time.Time

	lease uidgen.LeaseStats
}

// metric is one of the metrics a Collector may export: its descriptor,
// type and value in a snapshot at time now. A metric with skip is left out
// of the snapshots it says so of.
type metric struct {
	desc  *prometheus.Desc
	typ   prometheus.ValueType
	value func(s *snapshot, now time.Time) float64
	skip  func(s *snapshot) bool
}

func newMetric(name, help string, typ prometheus.ValueType, value func(s *snapshot, now time.Time) float64) metric {
	return metric{desc: prometheus.NewDesc("uidgen_"+name, help, nil, nil), typ: typ, value: value}
}

// The metrics every generator has, but for ids_total, which Collect
// reports itself (see Collector.taken).
var (
	idsTotal = prometheus.NewDesc("uidgen_ids_total", "UIDs handed out.", nil, nil)

	generatorMetrics = []metric{
		newMetric("takes_waited_total", "Takes that waited before they returned: for the padder to refill the ring (cached), for the next second (default), or for a lease's reservation.",
			prometheus.CounterValue, func(s *snapshot, _ time.Time) float64 { return float64(s.waited) }),
		newMetric("takes_failed_total", "Takes that returned an error.",
			prometheus.CounterValue, func(s *snapshot, _ time.Time) float64 { return float64(s.failed) }),
	}

	// aheadMetric is the time generators of UIDs borrow.
	aheadMetric = []metric{
		newMetric("ahead_seconds", "Seconds the newest UID's tick is ahead of the clock: time borrowed from the future.",
			prometheus.GaugeValue, func(s *snapshot, _ time.Time) float64 { return s.ahead.Seconds() }),
	}

	ringMetrics = []metric{
		newMetric("ring_size", "The most IDs the cached generator's ring holds.",
			prometheus.GaugeValue, func(s *snapshot, _ time.Time) float64 { return float64(s.size) }),
		newMetric("ring_available", "UIDs waiting in the ring.",
			prometheus.GaugeValue, func(s *snapshot, _ time.Time) float64 { return float64(s.available) }),
		newMetric("padder_fills_total", "Fills of the ring by its padder: at start, and per wake-up or tick.",
			prometheus.CounterValue, func(s *snapshot, _ time.Time) float64 { return float64(s.fills) }),
	}

	// secondsMetrics are the cached generator's source of whole seconds.
	secondsMetrics = []metric{
		newMetric("stale_ids_total", "UIDs thrown away unused, more than MaxLag behind the clock.",
			prometheus.CounterValue, func(s *snapshot, _ time.Time) float64 { return float64(s.stale) }),
		newMetric("clock_wait_seconds_total", "Time the padder waited for the clock under MaxAhead instead of borrowing further.",
			prometheus.CounterValue, func(s *snapshot, _ time.Time) float64 { return s.clockWait.Seconds() }),
	}

	segmentMetrics = []metric{
		newMetric("segment_claims_total", "Ranges of numbers claimed from the tag table.",
			prometheus.CounterValue, func(s *snapshot, _ time.Time) float64 { return float64(s.claims) }),
		newMetric("segment_claims_failed_total", "Claim statements that failed; the claimer tries again.",
			prometheus.CounterValue, func(s *snapshot, _ time.Time) float64 { return float64(s.claimsFailed) }),
		newMetric("segment_claim_size", "Numbers the last claim took.",
			prometheus.GaugeValue, func(s *snapshot, _ time.Time) float64 { return float64(s.claimSize) }),
		newMetric("segment_pending", "Numbers claimed and not yet put in the ring.",
			prometheus.GaugeValue, func(s *snapshot, _ time.Time) float64 { return float64(s.pending) }),
		newMetric("segment_last_claim_timestamp_seconds", "When the last claim was made, as Unix time.",
			prometheus.GaugeValue, func(s *snapshot, _ time.Time) float64 { return float64(s.lastClaim.Unix()) }),
	}

	leaseMetrics = []metric{
		newMetric("reservation_remaining_seconds", "Time until the seconds reserved for the leased worker ID run out, by the clock; negative once they have.",
			prometheus.GaugeValue, func(s *snapshot, now time.Time) float64 {
				return s.lease.Reserved.Add(time.Second).Sub(now).Seconds() // Reserved is the last second: they run out at its end
			}),
		newMetric("lease_lost", "1 once another process took the worker ID's lease over, else 0.",
			prometheus.GaugeValue, func(s *snapshot, _ time.Time) float64 {
				if s.lease.Lost {
					return 1
				}
				return 0
			}),
		{
			desc: prometheus.NewDesc("uidgen_lease_remaining_seconds",
				"Time until the worker ID's lease lapses unless renewed, by this process's clock; negative once it has.", nil, nil),
			typ:   prometheus.GaugeValue,
			value: func(s *snapshot, now time.Time) float64 { return s.lease.Expires.Sub(now).Seconds() },
			skip:  func(s *snapshot) bool { return s.lease.Expires.IsZero() }, // the lease does not say
		},
	}
)

// Collector is a prometheus.Collector over one generator. Build it with
// NewCached, NewDefault or NewSegment and register it with a prometheus.Registerer. It
// is safe for concurrent use.
type Collector struct {
	read    func() snapshot
	metrics []metric            // what this generator has, fixed by the constructor
	consts  []prometheus.Metric // worker ID and the end of the time bits: they never change
	now     func() time.Time    // the reservation's and lease's time left count from it

	// taken is the highest Taken reported. Stats reads the cached ring's
	// cursor and stale count one at a time, so while the padder drops
	// stale UIDs a snapshot can count some of them as handed out, and the
	// next one not; a counter must never go down, so Collect reports the
	// highest seen.
	mu    sync.Mutex
	taken int64
}

// NewCached returns a Collector over g: every metric, the ring's too, and
// the lease's where g's worker ID is leased.
func NewCached(g *cached.Generator) *Collector {
	read := func() snapshot {
		s := g.Stats()
		return snapshot{
			taken: s.Taken, waited: s.TakesWaited, failed: s.TakesFailed, ahead: s.Ahead,
			size: s.Size, available: s.Available, fills: s.Fills,
			stale: s.Stale, clockWait: s.ClockWait, lease: s.Lease,
		}
	}
	return newCollector(read, idConsts(g.WorkerID(), g.Layout()), aheadMetric, ringMetrics, secondsMetrics)
}

// NewDefault returns a Collector over g: the metrics every generator has,
// and the lease's where g's worker ID is leased. It has no ring.
func NewDefault(g *defaultgen.Generator) *Collector {
	read := func() snapshot {
		s := g.Stats()
		return snapshot{taken: s.Taken, waited: s.TakesWaited, failed: s.TakesFailed, ahead: s.Ahead, lease: s.Lease}
	}
	return newCollector(read, idConsts(g.WorkerID(), g.Layout()), aheadMetric)
}

// NewSegment returns a Collector over g: the numbers handed out, the takes,
// the ring and the claims. To tell the tags of several generators apart,
// register each through prometheus.WrapRegistererWith with a tag label.
func NewSegment(g *segment.Generator) *Collector {
	read := func() snapshot {
		s := g.Stats()
		return snapshot{
			taken: s.Taken, waited: s.TakesWaited, failed: s.TakesFailed,
			size: s.Size, available: s.Available, fills: s.Fills,
			claims: s.Claims, claimsFailed: s.ClaimsFailed, claimSize: s.ClaimSize, pending: s.Pending, lastClaim: s.LastClaim,
		}
	}
	return newCollector(read, nil, ringMetrics, segmentMetrics)
}

// idConsts returns the metrics of a generator of UIDs that never change:
// its worker ID and when its layout's time bits run out.
func idConsts(workerID int64, layout uidgen.Layout) []prometheus.Metric {
	gauge := func(name, help string, v float64) prometheus.Metric {
		return prometheus.MustNewConstMetric(prometheus.NewDesc("uidgen_"+name, help, nil, nil), prometheus.GaugeValue, v)
	}
	return []prometheus.Metric{
		gauge("worker_id", "The worker ID in every UID this generator makes.", float64(workerID)),
		gauge("time_exhausted_timestamp_seconds", "When the layout's time bits run out, as Unix time: no UID can be made from then on.",
			float64(layout.RunsOut().Unix())),
	}
}

// newCollector returns a Collector that reads snapshots with read and
// sends consts as they are: the metrics every generator has, extra, and the
// lease's when the first snapshot shows a lease (a generator's worker ID is
// leased or not for its life).
func newCollector(read func() snapshot, consts []prometheus.Metric, extra ...[]metric) *Collector {
	ms := slices.Concat(append([][]metric{generatorMetrics}, extra...)...)
	if read().lease.Leased {
		ms = append(ms, leaseMetrics...)
	}
	return &Collector{read: read, metrics: ms, consts: consts, now: time.Now, taken: -1}
}

// Describe sends the descriptors of every metric c exports.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- idsTotal
	for _, m := range c.metrics {
		ch <- m.desc
	}
	for _, m := range c.consts {
		ch <- m.Desc()
	}
}

// Collect reads the generator's Stats once and sends every metric.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.read()
	now := c.now()
	c.mu.Lock()
	c.taken = max(c.taken, s.taken)
	taken := c.taken
	c.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(idsTotal, prometheus.CounterValue, float64(taken))
	for _, m := range c.metrics {
		if m.skip == nil || !m.skip(&s) {
			ch <- prometheus.MustNewConstMetric(m.desc, m.typ, m.value(&s, now))
		}
	}
	for _, m := range c.consts {
		ch <- m
	}
}
