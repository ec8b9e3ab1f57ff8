#!/usr/bin/env bash
# Run a command in a new network namespace with only loopback (`unshare -rn`, lo
# brought up), with <flag>=1 in its environment to tell it so; the host e2e and
# agent-loop suites run this way (scripts/test-hosts.sh, scripts/test-agents.sh):
# whatever a host tries to reach beyond 127.0.0.1 fails at once, and nothing
# leaves the machine. Where unshare is not allowed, it runs the command in the
# normal network, without the flag, and says so.
#
#   scripts/loopback-only.sh <flag> <command> [args…]
set -euo pipefail
flag="$1"
shift
if unshare -rn true 2>/dev/null; then
  exec unshare -rn bash -c 'ip link set lo up && export "$0=1" && exec "$@"' "$flag" "$@"
fi
echo "loopback-only: unshare -rn is not allowed here: running $1 with the normal network" >&2
exec "$@"
