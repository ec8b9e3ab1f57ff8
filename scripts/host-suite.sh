#!/usr/bin/env bash
# What the host e2e and agent-loop suites share (scripts/test-hosts.sh,
# scripts/test-agents.sh): install the pinned hosts (scripts/install-hosts.sh),
# build, run vitest with only loopback (scripts/loopback-only.sh, <flag>=1 inside),
# then print the host runs that came closest to their timeouts
# (test/hosts/runlog-summary.mjs, from HCPX_HOST_RUNLOG: a temporary file unless
# set). The exit status is vitest's.
#
#   scripts/host-suite.sh <flag> <vitest config> [vitest args…]
set -euo pipefail
cd "$(dirname "$0")/.."
flag="$1"
config="$2"
shift 2
bash scripts/install-hosts.sh >/dev/null
node scripts/build.mjs
if [ -z "${HCPX_HOST_RUNLOG:-}" ]; then
  export HCPX_HOST_RUNLOG="$(mktemp -t hcpx-host-runs.XXXXXX)"
  trap 'rm -f "$HCPX_HOST_RUNLOG"' EXIT
fi
status=0
bash scripts/loopback-only.sh "$flag" npx vitest run --config "$config" "$@" || status=$?
node test/hosts/runlog-summary.mjs "$HCPX_HOST_RUNLOG" || true
exit "$status"
