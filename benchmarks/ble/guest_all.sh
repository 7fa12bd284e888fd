#!/usr/bin/env bash
# Inside the bluez-vm guest (benchmarks/ble/run.sh): the main benchmark (guest_bench.py, with the
# arguments given) and then the radio profiles (air_bench.py), in one boot. Either may be left
# out: RELAY_BENCH_PARTS=main, air, or main,air (default).
set -uo pipefail
here=$(dirname "$(readlink -f "$0")")
python=${RELAY_PYTHON:-python3}
status=0
parts=${RELAY_BENCH_PARTS:-main,air}
if [[ ",$parts," == *",main,"* ]]; then "$python" "$here/guest_bench.py" "$@" || status=$?; fi
if [[ ",$parts," == *",air,"* ]]; then "$python" "$here/air_bench.py" ${RELAY_AIR_BENCH_ARGS:-} || status=$?; fi
exit $status
