// The built-in image registry against the way images reach a local cluster without one: a 200 MB
// image (the test busybox rootfs plus four 50 MB layers of random data, built locally, so nothing
// compresses it away) is pushed to and pulled from a `kubedesk serve`'s registry with the real
// docker CLI, and in the same run moved with `docker save` and `docker load` (what `kind load
// docker-image` does). Each side is timed with the image's new layers absent where they are
// received: the pull and the load each start after the image was removed (its busybox base stays).
// Docker gzips each layer as it pushes (random data does not shrink, but the CPU is spent), so the
// registry's own share is measured too: the same bytes (the save's tar) uploaded as one blob and
// read back over HTTP by a plain Node client, without Docker.
// Everything the bench makes (the image, its pushed name, the tar, the cluster) is removed after.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { round, temporaryDir } from './lib.mjs';
import { busyboxImage, registerCleanup, requireImage, runFile, startPodCluster, timeCommand } from './podLib.mjs';

const LAYERS = 4;
const LAYER_BYTES = 50 * 1024 * 1024;
const RATIO_TARGET = 2;

export async function benchRegistry() {
  await requireImage(busyboxImage);
  const runId = Date.now().toString(36);
  const image = `kubedesk-bench/registry-${runId}:200mb`;
  const work = temporaryDir('registry-bench');
  const removeImages = new Set();
  const cleanup = async () => {
    for (const name of removeImages) await runFile('docker', ['rmi', name]).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  };
  const unregister = registerCleanup(cleanup);
  let cluster;
  try {
    // the image: random files, one COPY (one layer) each
    const context = join(work, 'context');
    mkdirSync(join(context, 'random'), { recursive: true });
    const lines = [`FROM ${busyboxImage}`];
    for (let index = 0; index < LAYERS; index++) {
      writeFileSync(join(context, 'random', `part-${index}`), randomBytes(LAYER_BYTES));
      lines.push(`COPY random/part-${index} /random/part-${index}`);
    }
    writeFileSync(join(context, 'Dockerfile'), `${lines.join('\n')}\n`);
    removeImages.add(image);
    await runFile('docker', ['build', '-q', '-t', image, context], { timeoutMs: 300_000 });
    rmSync(context, { recursive: true, force: true });
    const imageBytes = Number((await runFile('docker', ['image', 'inspect', '--format', '{{.Size}}', image])).trim());

    cluster = await startPodCluster({ name: 'registry-bench' });
    const port = Number(readFileSync(join(cluster.server.dataDir, 'registry', 'port'), 'utf8').trim());
    const pushed = `localhost:${port}/bench-${runId}/big:1`;
    removeImages.add(pushed);

    // docker save to a file, then docker load of it with the image gone (the pipe, split in two)
    const tar = join(work, 'image.tar');
    const save = await timed('docker', ['save', '-o', tar, image]);
    const tarBytes = statSync(tar).size;
    await runFile('docker', ['tag', image, pushed]);
    const push = await timed('docker', ['push', pushed]);
    await runFile('docker', ['rmi', image, pushed]);
    const load = await timed('docker', ['load', '-i', tar]);
    const blob = await blobRoundTrip(port, `bench-${runId}/raw`, tar);
    rmSync(tar, { force: true });
    await runFile('docker', ['rmi', image]);
    const pull = await timed('docker', ['pull', pushed]);

    const megabytes = imageBytes / 1024 / 1024;
    const rate = (ms) => `${round(megabytes / (ms / 1000), 0)} MB/s`;
    const registryMs = push + pull;
    const dockerMs = save + load;
    const rows = [
      [`registry: docker push (${round(megabytes, 0)} MB image)`, `${round(push / 1000, 2)} s (${rate(push)})`, `docker save: ${round(save / 1000, 2)} s (${rate(save)}, tar ${round(tarBytes / 1024 / 1024, 0)} MB)`, '', undefined],
      ['registry: docker pull, new layers absent', `${round(pull / 1000, 2)} s (${rate(pull)})`, `docker load: ${round(load / 1000, 2)} s (${rate(load)})`, '', undefined],
      ['registry alone: blob upload, then download (HTTP, no Docker)', `${round(blob.uploadMs / 1000, 2)} s (${round(tarBytes / 1024 / 1024 / (blob.uploadMs / 1000), 0)} MB/s), ${round(blob.downloadMs / 1000, 2)} s (${round(tarBytes / 1024 / 1024 / (blob.downloadMs / 1000), 0)} MB/s)`, 'the tar as one blob, digest checked', '', undefined],
      ['registry: push + pull vs save + load', `${round(registryMs / 1000, 2)} s`, `${round(dockerMs / 1000, 2)} s (ratio ${round(registryMs / dockerMs, 2)})`, `≤ ${RATIO_TARGET}× save + load`, registryMs <= RATIO_TARGET * dockerMs],
    ];
    return { name: 'registry', imageBytes, tarBytes, pushMs: push, pullMs: pull, saveMs: save, loadMs: load, blobUploadMs: blob.uploadMs, blobDownloadMs: blob.downloadMs, rows };
  } finally {
    if (cluster) await cluster.stop();
    await cleanup();
    unregister();
  }
}

async function timed(file, args) {
  const result = await timeCommand(file, args, { timeoutMs: 300_000 });
  if (result.code !== 0) throw new Error(`${file} ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.ms;
}

/** Uploads a file as one blob (monolithic POST, streamed) and reads it back; times each. */
async function blobRoundTrip(port, name, path) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  const digest = `sha256:${hash.digest('hex')}`;
  const size = statSync(path).size;
  let started = performance.now();
  const upload = await httpCall(port, 'POST', `/v2/${name}/blobs/uploads/?digest=${digest}`, { 'content-length': String(size), 'content-type': 'application/octet-stream' }, createReadStream(path));
  const uploadMs = performance.now() - started;
  if (upload.status !== 201) throw new Error(`blob upload answered ${upload.status}`);
  started = performance.now();
  const download = await httpCall(port, 'GET', `/v2/${name}/blobs/${digest}`, {});
  const downloadMs = performance.now() - started;
  if (download.status !== 200 || download.bytes !== size) throw new Error(`blob download answered ${download.status} with ${download.bytes} bytes`);
  return { uploadMs, downloadMs };
}

function httpCall(port, method, path, headers, body) {
  return new Promise((resolveCall, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk) => (bytes += chunk.length));
      response.on('end', () => resolveCall({ status: response.statusCode, bytes }));
      response.on('error', reject);
    });
    request.setTimeout(300_000, () => request.destroy(new Error(`${method} ${path} timed out`)));
    request.on('error', reject);
    if (body) body.pipe(request);
    else request.end();
  });
}

