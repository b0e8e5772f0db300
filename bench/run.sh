#!/usr/bin/env bash
# Runs the benchmark suite and the latency run, prints benchstat's table and
# the ratios that matter, and rewrites bench/RESULTS.md and
# bench/ids-per-second.png from them. The raw output stays in bench/results/.
#
#   bash bench/run.sh                      # 6 rounds of -benchtime 1s: about 21 minutes
#   COUNT=10 BENCHTIME=2s LATENCY=5s CPU=20s bash bench/run.sh
#
# The machine should be otherwise idle; on a shared one, compare within a run.
set -euo pipefail
cd "$(dirname "$0")"

COUNT="${COUNT:-6}"
BENCHTIME="${BENCHTIME:-1s}"
LATENCY="${LATENCY:-3s}"
CPU="${CPU:-10s}"
mkdir -p results

step() { printf '\n== %s\n' "$*" >&2; }

step "benchmarks: $COUNT rounds of -benchtime $BENCHTIME (raw output: bench/results/bench.txt)"
# A benchmark that fails still leaves the others' numbers; the report lists
# it under Failures instead of stopping here.
# The suite runs COUNT rounds of one -count each, not -count COUNT once:
# a shared machine's moods last minutes, and -count 6 would give each
# implementation its six in a row, so that a slow spell lands on one of
# them and shows as its ratio; in rounds it lands on all of them alike.
# The idle benchmarks wait seconds per op for the next statement: timed
# with -benchtime, a first op that catches a statement at once makes the
# framework ask for a hundred more. They run apart, a fixed few ops each.
go test -c -o results/bench.test .
rounds() {
  local ok=0
  for ((i = 1; i <= COUNT; i++)); do
    results/bench.test -test.run '^$' -test.bench . -test.skip 'Idle' -test.count 1 -test.benchtime "$BENCHTIME" || ok=1
  done
  results/bench.test -test.run '^$' -test.bench 'Idle' -test.count 2 -test.benchtime 3x || ok=1
  return $ok
}
rounds | tee results/bench.txt ||
  echo "run.sh: some benchmarks failed; RESULTS.md lists them" >&2
rm -f results/bench.test

step "NextID latency, $LATENCY per row (bench/results/latency.txt)"
go run ./cmd/latency -d "$LATENCY" | tee results/latency.txt

step "CPU at a steady rate, $CPU a cell: idle to 1M IDs/s, and the padder flat out (bench/results/cpu.txt)"
go run ./cmd/cpu -d "$CPU" | tee results/cpu.txt

step "ring memory: a cached generator's heap, peak RSS of uidgen bench by layout (bench/results/memory.txt)"
go run ./cmd/memory -d 1s | tee results/memory.txt

go list -m github.com/bwmarrin/snowflake github.com/sony/sonyflake/v2 >results/peers.txt

step "benchstat (bench/results/benchstat.txt)"
go tool benchstat results/bench.txt | tee results/benchstat.txt

step "uidgen serve under wrk, against a bare handler (bench/results/serve.txt)"
# Its own section of RESULTS.md, which the report below keeps. wrk is
# Debian's package; a machine without it gets it, or skips this step.
if command -v wrk >/dev/null || apt-get install -y wrk >/dev/null; then
  go run ./cmd/serve -out .
else
  echo "run.sh: no wrk, and apt-get install wrk failed: the serve section stays as it was" >&2
fi

step "ratios (bench/RESULTS.md, bench/ids-per-second.png)"
go run ./cmd/report -results results -benchtime "$BENCHTIME" -out .
