#!/usr/bin/env bash
# The host e2e suite (`npm run test:hosts`): the hosts' own programs against what
# `hcpx adopt` / `generate --as` wrote, with no network but loopback, as the
# agent-loop suite (scripts/host-suite.sh: install, build, vitest with only
# loopback, the runs closest to their timeouts). Whatever a host tries to reach
# (telemetry, updates, a registry) fails at once instead of waiting on the
# machine's network, and nothing leaves the machine. HCPX_HOSTS_NETNS=1 tells
# the suite it is so (test/hosts/offline.test.ts checks it). Where unshare is not
# allowed, it runs in the normal network and says so.
#
#   scripts/test-hosts.sh [vitest args…]     e.g. test/hosts/e2e/adopt-hosts.test.ts
exec bash "$(dirname "$0")/host-suite.sh" HCPX_HOSTS_NETNS vitest.hosts.config.ts "$@"
