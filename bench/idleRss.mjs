// Idle memory: the server's resident set (VmRSS) after start-up and ~3 s with no requests, beside
// an idle bare node process (`node -e "setTimeout(()=>{},3000)"`) read the same way in the same run.
// Resident memory is what a desktop user sees in their activity monitor.
import { spawn } from 'node:child_process';
import { memoryOf, sleep, startServer } from './lib.mjs';

const TARGET_MB = 100;
const IDLE_MS = 3_000;

async function bareNodeRss() {
  const child = spawn(process.execPath, ['-e', 'setTimeout(()=>{},3000)'], { stdio: 'ignore' });
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  try {
    // Read just before its timer ends, so it has been idle as long as it can be.
    await sleep(2_500);
    return memoryOf(child.pid);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export async function benchIdleRss() {
  const baseline = await bareNodeRss();
  const server = await startServer({ name: 'idle-rss' });
  try {
    await sleep(IDLE_MS);
    const memory = memoryOf(server.pid);
    return {
      name: 'idleRss',
      figures: { serverRssMb: memory.rssMb, serverPeakRssMb: memory.peakMb, nodeRssMb: baseline.rssMb, overNodeMb: memory.rssMb - baseline.rssMb },
      rows: [
        ['idle RSS after 3 s', `${memory.rssMb.toFixed(0)} MB`, `node idle: ${baseline.rssMb.toFixed(0)} MB`, `≤ ${TARGET_MB} MB`, memory.rssMb <= TARGET_MB],
        ['peak RSS (VmHWM) by then', `${memory.peakMb.toFixed(0)} MB`, `node idle: ${baseline.peakMb.toFixed(0)} MB`, '', undefined],
      ],
    };
  } finally {
    await server.stop();
  }
}
