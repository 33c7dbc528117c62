# Sourced by run_spgemm_fast.sh and run_spgemm_vs_speck.sh: their common start.
# Usage: . "$(dirname "$0")/spgemm_run_env.sh" SCRATCH LOG  (SCRATCH: the folder under /tmp; LOG:
# the file under $out that stamp appends to). Sets root (the repository; the caller is moved
# there), out ($OUT, default gpu-logs/), tmp, t0, stamp MSG (seconds since t0, also printed),
# peers ($PEERS_DIR, else the first of .peers/, shared/peers/, ../shared/peers/ holding
# build_speck.sh; empty when none) and data (.data/, else ../shared/data).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${OUT:-$root/gpu-logs}
tmp=/tmp/$1
stamp_log=$out/$2
mkdir -p "$out" "$tmp"
cd "$root"
t0=$SECONDS
stamp() { echo "[$((SECONDS - t0)) s] $*" | tee -a "$stamp_log"; }
peers=${PEERS_DIR:-}
for d in "$root/.peers" "$root/shared/peers" "$root/../shared/peers"; do
  [ -z "$peers" ] && [ -f "$d/build_speck.sh" ] && peers=$d
done
data=$root/.data
[ -d "$data/suitesparse" ] || data=$root/../shared/data
