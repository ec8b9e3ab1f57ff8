#!/usr/bin/env bash
# The agent-loop suite (`npm run test:agents`): the hosts' own headless agents
# against the scripted fake model on 127.0.0.1, with no network but loopback
# (scripts/host-suite.sh: install, build, vitest with only loopback, the runs
# closest to their timeouts), so that nothing a host tries can leave the machine;
# HCPX_AGENTS_OFFLINE=1 tells the suite it is so (test/agents/offline.test.ts
# checks it). Where unshare is not allowed, it runs in the normal network and
# says so.
#
#   scripts/test-agents.sh [vitest args…]     e.g. test/agents/claude.test.ts
exec bash "$(dirname "$0")/host-suite.sh" HCPX_AGENTS_OFFLINE vitest.agents.config.ts "$@"
