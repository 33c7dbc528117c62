#!/usr/bin/env bash
# Multi-GPU sparse DNN (issue 5) on one host with G GPUs, after scripts/gpu_host_build.sh built
# build-gpu/ with MPI: PASS on the real 1024 x 120 network with G ranks, then 16384 x 120 with
# 60,000 images on 1, 2, ..., G ranks, the 1-rank "layers" time being the scaling baseline.
# Logs and a summary in $OUT (or ./gpu-logs). UPLOAD=packed passes --upload packed to every run
# (how weights and images cross the bus; default csr).
# Usage: [UPLOAD=csr|packed] tests/bench/run_spdnn_mpi.sh G [NEURONS]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/gpu-logs}
mkdir -p "$out"
gpus=${1:?usage: run_spdnn_mpi.sh G [NEURONS]}
neurons=${2:-16384}
cli=$root/build-gpu/ringblas
data=$root/.data/graphchallenge_dnn
[ -d "$data" ] || data=$root/../shared/data/graphchallenge_dnn
command -v mpirun >/dev/null || { echo "no mpirun on this host: multi-GPU spdnn cannot run" >&2; exit 1; }
grep -q "RINGBLAS_HAS_MPI=1" "$root/build-gpu/CMakeFiles/ringblas_cli.dir/flags.make" 2>/dev/null ||
  { echo "build-gpu/ringblas was configured without MPI (CMake found none)" >&2; exit 1; }
launch=(mpirun)
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  # root in the container; CMA single-copy needs ptrace, which containers often forbid
  launch+=(--allow-run-as-root --mca btl_vader_single_copy_mechanism none)
fi
export LD_LIBRARY_PATH=/tmp/ringblas-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader | tee "$out/mpi_gpus.txt"
summary=$out/spdnn_mpi_summary.txt
: >"$summary"
run() {  # run NAME NP ARGS...
  local name=$1 np=$2
  shift 2
  set -- "$@" --upload "${UPLOAD:-packed}"
  if [ "$np" = 1 ]; then
    "$cli" spdnn "$@" >"$out/$name.log" 2>&1
  else
    "${launch[@]}" -np "$np" "$cli" spdnn "$@" --gpus "$np" >"$out/$name.log" 2>&1
  fi
  local rc=$?
  { echo "== $name (np $np, rc $rc)"; grep -E "^(rank [0-9]+:|layers:|inference:|whole /|time split:|sent to|scaling|categories:|PASS|FAIL|truth|warning)" "$out/$name.log"; } >>"$summary"
  return $rc
}
rc=0
run pass_1024x120_np$gpus "$gpus" --neurons 1024 --layers 120 --data "$data" --backend cuda || rc=1
run pass_1024x120_60k_np$gpus "$gpus" --neurons 1024 --layers 120 --data "$data" --backend cuda --images 60000 || rc=1
run scale_${neurons}_np1 1 --neurons "$neurons" --layers 120 --data "$data" --backend cuda --images 60000 || rc=1
base=$(grep -oE "^layers: [0-9.]+" "$out/scale_${neurons}_np1.log" | awk '{print $2}')
for np in $(seq 2 "$gpus"); do
  run scale_${neurons}_np$np "$np" --neurons "$neurons" --layers 120 --data "$data" --backend cuda \
    --images 60000 ${base:+--baseline-ms "$base"} || rc=1
done
run rebalance_${neurons}_np$gpus "$gpus" --neurons "$neurons" --layers 120 --data "$data" --backend cuda \
  --images 60000 --rebalance-after 4 --rebalance-threshold 0 ${base:+--baseline-ms "$base"} || rc=1
cat "$summary"
exit $rc
