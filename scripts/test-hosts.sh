#!/usr/bin/env bash
# The host e2e suite (`npm run test:hosts`): the hosts' own programs against what
# `hcpx adopt` / `generate --as` wrote, with no network but loopback. Installs the
# pinned hosts (scripts/install-hosts.sh), builds, then runs vitest with only
# loopback (scripts/loopback-only.sh), as the agent-loop suite does: whatever a
# host tries to reach (telemetry, updates, a registry) fails at once instead of
# waiting on the machine's network, and nothing leaves the machine.
# HCPX_HOSTS_NETNS=1 tells the suite it is so (test/hosts/offline.test.ts checks
# it). Where unshare is not allowed, it runs in the normal network and says so.
#
#   scripts/test-hosts.sh [vitest args…]     e.g. test/hosts/e2e/adopt-hosts.test.ts
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-hosts.sh >/dev/null
node scripts/build.mjs
# each host run's time, wait and timeout (test/hosts/hostcli.mjs), summed up after the run
if [ -z "${HCPX_HOST_RUNLOG:-}" ]; then
  export HCPX_HOST_RUNLOG="$(mktemp -t hcpx-host-runs.XXXXXX)"
  trap 'rm -f "$HCPX_HOST_RUNLOG"' EXIT
fi
status=0
bash scripts/loopback-only.sh HCPX_HOSTS_NETNS npx vitest run --config vitest.hosts.config.ts "$@" || status=$?
node test/hosts/runlog-summary.mjs "$HCPX_HOST_RUNLOG" || true
exit "$status"
