#!/usr/bin/env bash
# The test bed itself works: bless (hci0) and bleak (hci1) exchange counters both ways.
# Runs first in scenarios/vm/run-scenarios.sh so a broken bed is told apart from broken programs.
# vm-timeout: 180
exec "$(dirname "$0")/smoke.sh"
