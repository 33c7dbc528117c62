#!/usr/bin/env bash
# Where spgemm_hash spends its time, after build-gpu/ was built with the benchmark
# (scripts/gpu_host_build.sh --bench): per-kernel times of one call for a few matrices, then
# stall reasons and source hot spots (ncu WarpStateStats, SourceCounters) of the numeric and
# symbolic block kernels on one matrix. Output: $OUT/profile_kernels.log, $OUT/profile_stalls.log.
# Usage: tests/bench/profile_spgemm.sh [MATRIX_FOR_STALLS] [MATRICES_FOR_KERNEL_TIMES...]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu-logs}
mkdir -p "$out"
export LD_LIBRARY_PATH=/tmp/ringblas-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
bench=$root/build-gpu/tests/bench/bench_spgemm
stall=${1:-er200k}
shift || true
matrices=("$@")
[ ${#matrices[@]} -gt 0 ] || matrices=(hep-th CA-HepTh er200k soc-Epinions)
tmp=$(mktemp -d)
# One call = the first plus_times fp64 call of the bench (launches before the first cuSPARSE one).
for m in "${matrices[@]}"; do
  echo "== $m (ns, grid, block, kernel)" >>"$out/profile_kernels.log"
  timeout 90 ncu --metrics gpu__time_duration.sum --launch-count 30 --csv --print-units base \
    "$bench" --only "$m" --reps 10 --json "$tmp/n.json" --md "$tmp/n.md" 2>/dev/null |
    grep -E '^"[0-9]' | awk -F"\",\"" '{print $NF "," $9 "," $8 "," $5}' | sed -E 's/"//g; s/void //; s/ringblas::(cuda::spgemm_hash::)?//g; s/<unnamed>:://' | cut -c1-110 |
    awk '/cusparse|csrgemm|Spgemm/ {exit} {print}' >>"$out/profile_kernels.log"
done
for k in k_numeric_block k_symbolic_block; do
  echo "== $stall $k" >>"$out/profile_stalls.log"
  timeout 120 ncu --kernel-name "regex:$k" --launch-count 1 --section WarpStateStats \
    --section SourceCounters --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    --section ComputeWorkloadAnalysis -o "$tmp/$k" \
    "$bench" --only "$stall" --reps 10 --json "$tmp/n.json" --md "$tmp/n.md" >/dev/null 2>&1
  ncu --import "$tmp/$k.ncu-rep" --page details 2>&1 | grep -vE "^\s*$|----" | head -150 >>"$out/profile_stalls.log"
  ncu --import "$tmp/$k.ncu-rep" --page source --csv --print-source cuda 2>"$tmp/src.err" |
    python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
if not rows: sys.exit(0)
head = rows[0]
def col(name):
    for i, h in enumerate(head):
        if h.strip() == name: return i
    return None
ws = col("Warp Stall Sampling (All Samples)")
if ws is None: ws = next((i for i, h in enumerate(head) if "Sampling" in h), None)
if ws is None: print("columns:", head[:12]); sys.exit(0)
def num(x):
    try: return float(x.replace(",", ""))
    except ValueError: return 0.0
body = [r for r in rows[1:] if len(r) > ws]
tot = sum(num(r[ws]) for r in body) or 1
for r in sorted(body, key=lambda r: -num(r[ws]))[:25]:
    print("%5.1f%%  %s" % (100 * num(r[ws]) / tot, " | ".join(c.strip()[:110] for c in r[:2])))
' >>"$out/profile_stalls.log" 2>&1
  tail -3 "$tmp/src.err" >>"$out/profile_stalls.log"
done
rm -rf "$tmp"
