#!/usr/bin/env bash
# Smoke pass on whatever Node is first on PATH: `npm start` comes up on the devnet, then `launchpad demo`
# walks the product against it (launch, buy, sell, fee claim, announcement, index) and must exit 0.
set -euo pipefail
cd "$(dirname "$0")/.."

data=$(mktemp -d /tmp/launchpad-smoke-XXXXXX)
log="$data/start.log"
cleanup() {
  status=$?
  if [ -n "${pid:-}" ]; then
    kill -TERM -- "-$pid" 2>/dev/null || true # npm and the gateway under it: their own process group
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$data"
  exit "$status"
}
trap cleanup EXIT

echo "smoke on node $(node --version)"
LAUNCHPAD_DATA_DIR="$data" PORT=0 DEVNET_PORT=18545 setsid npm start >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do
  grep -q 'ready at' "$log" && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "npm start exited before it was ready" >&2; exit 1; }
  sleep 0.5
done
grep -q 'ready at' "$log" || { cat "$log"; echo "npm start was not ready in 120 s" >&2; exit 1; }
base=$(grep -o 'http://[^ ]*/v1' "$log" | head -n 1)
echo "gateway ready at $base"
LAUNCHPAD_DATA_DIR="$data" node bin/launchpad.js demo --base-url "$base"
