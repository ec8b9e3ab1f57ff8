#!/usr/bin/env bash
# Install the large real OpenAPI documents (GitHub's from @octokit/openapi, 385 MB
# installed with its GHES variants; Blockfrost's) for the Prism suite
# (`npm run test:openapi`) and `npm run bench`, outside hcpx's dependencies, into
# ${HCPX_OPENAPI_DOCS_DIR:-$HOME/.cache/hcpx-openapi-docs}. Idempotent: a stamp of
# test/openapi/package.json + package-lock.json says when it is up to date.
#   scripts/install-openapi-docs.sh           install if missing or stale
#   scripts/install-openapi-docs.sh --check   exit 0 if installed and up to date
#   scripts/install-openapi-docs.sh --print   print the installed directory
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/../test/openapi" && pwd)"
dir="${HCPX_OPENAPI_DOCS_DIR:-$HOME/.cache/hcpx-openapi-docs}"
stamp="$dir/.hcpx-openapi-docs-stamp"
want="$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)"
case "${1:-install}" in
  --print) echo "$dir"; exit 0 ;;
  --check) [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; exit $? ;;
esac
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then echo "HCPX_OPENAPI_DOCS_DIR=$dir"; exit 0; fi
mkdir -p "$dir"
cp "$src/package.json" "$src/package-lock.json" "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
echo "$want" > "$stamp"
echo "HCPX_OPENAPI_DOCS_DIR=$dir"
