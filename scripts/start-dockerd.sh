#!/usr/bin/env bash
# Starts dockerd in the background when no Docker daemon answers, and waits up to 60 s for it
# (log: /tmp/dockerd.log). Used by scripts/ci-setup.sh and by the end-to-end test that restarts
# Docker, so both start the daemon the same way. Run as root (or with sudo available).
set -euo pipefail

if docker info >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" -eq 0 ]; then sudo=(); else sudo=(sudo); fi
if ! command -v dockerd >/dev/null 2>&1; then
  echo "start-dockerd: docker does not answer and there is no dockerd to start" >&2
  exit 1
fi
echo "start-dockerd: starting dockerd (log in /tmp/dockerd.log)"
"${sudo[@]}" sh -c 'nohup dockerd >/tmp/dockerd.log 2>&1 &'
for _ in $(seq 1 60); do
  docker info >/dev/null 2>&1 && exit 0
  sleep 1
done
echo "start-dockerd: dockerd did not come up within 60 s; last log lines:" >&2
tail -n 40 /tmp/dockerd.log >&2 || true
exit 1
