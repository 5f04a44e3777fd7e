#!/usr/bin/env bash
# pairs.sh compares one benchmark of two builds of this module in pairs of
# runs whose order alternates, so that the drift of a shared VM (up to 2x
# between minutes) falls on both sides of each ratio:
#
#   (cd <old checkout>/bench && go test -c -o /tmp/bench_old .)
#   (cd bench && go test -c -o /tmp/bench_new .)
#   bench/pairs.sh /tmp/bench_old <old checkout>/bench /tmp/bench_new bench \
#       BenchmarkColdRunPrewarm 10 600x ns/op
#
# Each line: the old figure, the new one, new/old, the load average. The
# metric is a unit the benchmark reports (ns/op, ns/call); decide by the
# median of the ratios.
set -euo pipefail
old=$1 olddir=$2 new=$3 newdir=$4 bench=$5 pairs=$6 benchtime=$7 metric=${8:-ns/op}
run() {
  (cd "$2" && "$1" -test.run '^$' -test.bench "^$bench\$" -test.benchtime "$benchtime" 2>&1 |
    awk -v m="$metric" '/^Benchmark/ { for (i = 2; i < NF; i++) if ($(i + 1) == m) print $i }')
}
for i in $(seq 1 "$pairs"); do
  if ((i % 2)); then n=$(run "$new" "$newdir"); o=$(run "$old" "$olddir")
  else o=$(run "$old" "$olddir"); n=$(run "$new" "$newdir"); fi
  echo "$o $n $(awk -v o="$o" -v n="$n" 'BEGIN { printf "%.3f", n / o }') $(cut -d' ' -f1 /proc/loadavg)"
done
