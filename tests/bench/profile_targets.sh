#!/usr/bin/env bash
# ncu profiles of the speed targets the issues (9, 12, 14) accept as missed only with "the limit
# explained with a profile", in one device call of about 6 minutes, after build-gpu/ was built
# with the benchmarks (scripts/gpu_host_build.sh --bench). Each step runs one benchmark program
# under ncu at the size its target is measured at, with RINGBLAS_BENCH_PROFILE naming the rows to
# profile: each such row runs one more, untimed call after its warm-ups between
# cudaProfilerStart/Stop in an NVTX range named "row | bytes=compulsory bytes"
# (tests/bench/profile_range.hpp), so `--profile-from-start off` profiles exactly one call per
# operation and ncu_summary.py groups the kernels by operation. ncu flushes the caches before each
# kernel (--cache-control all, its default), so DRAM bytes are those of a cold L2; clocks are left
# as the benchmarks run them (--clock-control none; PT_CLOCK=base to lock them).
# Output under $RES (default /tmp/profile_targets): profile_targets.md (the summary), ncu/STEP.txt
# (the program's output and ncu's messages, then ncu's raw page as csv), STEP.json / STEP.md (the
# program's own tables: the profiled call is untimed, the rest run under ncu's interception),
# steps.tsv (step, exit status, seconds).
# Usage: RES=/tmp/profile_targets bash tests/bench/profile_targets.sh [STEP...]
#   steps (default all, in this order): elementwise transpose reduce spmm spmm_cusparse maxk spgemm spdnn
#   PT_CALL_S (default 370): the whole call's limit; every step's own limit is cut to what is left.
#   For stall reasons and source hot spots of spgemm_hash, tests/bench/profile_spgemm.sh.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
res=${RES:-/tmp/profile_targets}
bin=${PT_BIN:-$root/build-gpu/tests/bench}
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
mkdir -p "$res/ncu"
export LD_LIBRARY_PATH=/tmp/ringblas-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,lts__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,l1tex__throughput.avg.pct_of_peak_sustained_active
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,launch__registers_per_thread,launch__waves_per_multiprocessor
t0=$SECONDS
wanted=("$@")
: >"$res/steps.tsv"

# limit WANTED: the smaller of WANTED seconds and what the call has left (less 15 s for the
# summary).
limit() {
  local left=$((${PT_CALL_S:-370} - (SECONDS - t0) - 15))
  [ "$left" -lt 1 ] && left=1
  echo $(($1 < left ? $1 : left))
}

# step NAME SECONDS LABELS NCU_FILTERS PROGRAM ARGS...: PROGRAM ARGS under ncu, profiling the rows
# whose label contains one of the comma-separated LABELS; NCU_FILTERS: more ncu options ("" none).
step() {
  local name=$1 seconds=$2 labels=$3 filters=$4
  shift 4
  if [ ${#wanted[@]} -gt 0 ] && [[ " ${wanted[*]} " != *" $name "* ]]; then return; fi
  local start=$SECONDS lim
  lim=$(limit "$seconds")
  echo "[$((SECONDS - t0)) s] $name (limit $lim s)"
  # shellcheck disable=SC2086  # NCU_FILTERS is a word list
  RINGBLAS_BENCH_PROFILE=$labels timeout -k 10 "$lim" "$ncu" --csv --page raw --print-units base \
    --metrics "$metrics" --profile-from-start off --nvtx --clock-control "${PT_CLOCK:-none}" \
    $filters "$@" >"$res/ncu/$name.txt" 2>&1
  local rc=$?
  printf '%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - start))" >>"$res/steps.tsv"
  echo "[$((SECONDS - t0)) s] $name: exit $rc, $((SECONDS - start)) s"
}

# Issue 12: the element-wise rows of elementwise_final_h100.md on gen n=1048576 d=96 (100M
# entries), apply masked and select value_gt also forced to row_filter.
step elementwise 120 all "" "$bin/bench_elementwise" --inputs d=96 --cpu 0 --reps 3 \
  --variants automatic,row_filter \
  --ops "ewise_add plus,ewise_mult times,apply identity masked by A,select value_gt 0,select row_topk 8,select col_topk 8" \
  --json "$res/elementwise.json" --md "$res/elementwise.md"
# The transpose under each TransposeMethod (fp64, what reduce cols and transpose run) and column
# top-k 8 on fp32 as select runs it, on the same 100M-entry shape (uniform rows of 96).
step transpose 90 "| transpose [kernel,| transpose [cusparse,| col_topk" "" "$bin/bench_reduce_transpose" \
  --sizes 100 --kinds d96 --cpu 0 --reps 3 --ops "transpose [kernel,transpose [cusparse,col_topk" \
  --json "$res/transpose.json" --md "$res/transpose.md"
# Issue 9's reduce target (>= 80% of copy): rows (kernel and the public call, whose write-back
# and size read are the difference; also the 16-byte row kernel and the fused output, the
# fused output and vec row kernel: reduction::paths) and columns by monoid atomics
# (also by column ranges that fit half of L2),
# on 100M entries of uniform rows and of power-law columns (hot columns for the atomics).
step reduce 90 "| reduce" "" "$bin/bench_reduce_transpose" \
  --sizes 100 --kinds d96,powerlaw --cpu 0 --reps 3 \
  --ops "reduce rows plus [kernel],reduce rows plus [kernel vec],reduce rows plus [api],reduce rows plus [api fused vec],reduce cols plus [kernel atomic],reduce cols plus [kernel ranges],reduce cols plus [api]" \
  --json "$res/reduce.json" --md "$res/reduce.md"
# Issue 9: the Tox21 batch of 10,000 graphs at n_B=64 (target 50% of copy bandwidth), and issue
# 14's single SpMM on soc-Epinions1 and PubMed at n_B=64, ours (automatic and each variant); then
# cuSPARSE's algorithms on the same in a step of their own: ncu failing on one cuSPARSE kernel
# (it did on the batched loop's csrmm_alg2_kernel) ends the program, and the rows after it.
step spmm 90 ringblas "" "$bin/bench_spmm" --configs "tox21 graphs=10000 n_B=64" \
  --graphs soc-Epinions1,pubmed --widths 64 --reps 3 \
  --impls ringblas_api,ringblas_csr_kernel,ringblas_coo_kernel \
  --json "$res/spmm.json" --md "$res/spmm.md"
step spmm_cusparse 60 cusparse "" "$bin/bench_spmm" --single --graphs soc-Epinions1,pubmed \
  --widths 64 --reps 3 --impls cusparse_alg,cusparse_default \
  --json "$res/spmm_cusparse.json" --md "$res/spmm_cusparse.md"
# MaxK backward at k=16 on the paper's graph (100k nodes x 64, hidden 256) and the cuSPARSE SpMM
# the speed-up is measured against.
step maxk 60 "maxk_backward,maxk_forward,cusparse_spmm" "" "$bin/bench_maxk" --k 16 --no-flush \
  --reps 3 --out "$res/maxk"
# spgemm_hash on soc-Epinions1, fp64, against cusparseSpGEMM (per-kernel times of more matrices
# and stall reasons: profile_spgemm.sh).
step spgemm 60 "plus_times fp64" "" "$bin/bench_spgemm" --only soc-Epinions --reps 3 \
  --json "$res/spgemm.json" --md "$res/spgemm.md"
# Sparse DNN: the first three launches of the fused layer kernel (1024 neurons, all 60,000
# features active) of one inference.
step spdnn 60 "1024x120" "--kernel-name regex:sparse_layer_kernel --launch-count 3" \
  "$bin/bench_spdnn" --only 1024x120 --repeats 1 --no-baseline --upload csr \
  --json "$res/spdnn.json" --md "$res/spdnn.md"

python3 "$root/tests/bench/ncu_summary.py" --steps "$res/steps.tsv" --out "$res/profile_targets.md" \
  "$res"/ncu/*.txt
echo "[$((SECONDS - t0)) s] wrote $res/profile_targets.md"
