#!/bin/bash
# A/B of a change to the runner: the whole corpus on onnxruntime at -n 2, gated by the committed
# baseline, with HEAD's version of the changed harness/ files (A) and the working tree's (B),
# alternating, after one warm-up run; prints each pair and the medians.
#
#     bash bench/bench_ab.sh [PAIRS]      (default 4; the README's A/B figures)
#
# The working tree's files are copied aside first and put back however the script ends.
set -u
cd "$(git rev-parse --show-toplevel)"
pairs=${1:-4}
files=$(git diff --name-only HEAD -- harness)
[ -n "$files" ] || { echo "bench_ab: no change under harness/ to compare" >&2; exit 2; }
keep=$(mktemp -d); out=$(mktemp -d)
for f in $files; do cp --parents "$f" "$keep/"; done
restore() { cp -r "$keep/." .; rm -rf "$keep" "$out"; }
trap restore EXIT
run() {
  rm -rf "$out/r"
  local t0 t1; t0=$(date +%s.%N)
  run-conformance --cases cases -n 2 -q --report-dir "$out/r" \
    --expectations reports/onnxruntime/expectations.txt >/dev/null 2>&1
  t1=$(date +%s.%N); python3 -c "print(f'{$t1 - $t0:.2f}')"
}
run >/dev/null
A=(); B=()
for _ in $(seq "$pairs"); do
  git checkout -q HEAD -- $files; a=$(run); cp -r "$keep/." .; b=$(run)
  echo "A $a B $b"; A+=("$a"); B+=("$b")
done
python3 - "${A[*]}" "${B[*]}" <<'PY'
import statistics, sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
print(f"median A (HEAD) {statistics.median(a):.2f} s, B (working tree) {statistics.median(b):.2f} s, "
      f"B - A {statistics.median(b) - statistics.median(a):+.2f} s; pairs {[round(y - x, 2) for x, y in zip(a, b)]}")
PY
