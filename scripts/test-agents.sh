#!/usr/bin/env bash
# The agent-loop suite (`npm run test:agents`): the hosts' own headless agents
# against the scripted fake model on 127.0.0.1, with no network but loopback.
# Installs the pinned hosts (scripts/install-hosts.sh), builds, then runs vitest
# with only loopback (scripts/loopback-only.sh) so that nothing a host tries can
# leave the machine; HCPX_AGENTS_OFFLINE=1 tells the suite it is so
# (test/agents/offline.test.ts checks it). Where unshare is not allowed, it runs
# in the normal network and says so.
#
#   scripts/test-agents.sh [vitest args…]     e.g. test/agents/claude.test.ts
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
bash scripts/loopback-only.sh HCPX_AGENTS_OFFLINE npx vitest run --config vitest.agents.config.ts "$@" || status=$?
node test/hosts/runlog-summary.mjs "$HCPX_HOST_RUNLOG" || true
exit "$status"
