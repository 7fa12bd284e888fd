#!/usr/bin/env bash
# Inside the bluez-vm guest (benchmarks/ble/run.sh): the main benchmark (guest_bench.py, with the
# arguments given), then the radio profiles (air_bench.py) and the whole class (class_bench.py,
# options in RELAY_CLASS_BENCH_ARGS) and the browser page against relay-central (page_bench.py,
# options in RELAY_PAGE_BENCH_ARGS), in one boot. Any may be left out: RELAY_BENCH_PARTS lists
# the parts run (main, air, class, page; default all four).
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
python=${RELAY_PYTHON:-python3}
status=0
parts=${RELAY_BENCH_PARTS:-main,air,class,page}
if [[ ",$parts," == *",main,"* ]]; then "$python" "$here/guest_bench.py" "$@" || status=$?; fi
if [[ ",$parts," == *",air,"* ]]; then "$python" "$here/air_bench.py" ${RELAY_AIR_BENCH_ARGS:-} || status=$?; fi
if [[ ",$parts," == *",class,"* ]]; then
  # shellcheck disable=SC2086 # options, split on purpose
  "$python" "$here/class_bench.py" ${RELAY_CLASS_BENCH_ARGS:-} || status=$?
fi
if [[ ",$parts," == *",page,"* ]]; then
  # shellcheck disable=SC2086 # options, split on purpose
  "$python" "$here/page_bench.py" ${RELAY_PAGE_BENCH_ARGS:-} || status=$?
fi
exit $status
