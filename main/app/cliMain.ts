// Entry point bundled into dist/kubedesk.mjs: runs the command line and exits with its code.
// A stray exception in a background task is logged rather than taking the whole cluster down,
// as the Go apiserver recovers a panicking handler; request handlers already answer with a Status.
import { main } from './cli';

process.on('uncaughtException', (error) => {
  console.error('kubedesk: unexpected error (continuing):', error);
});
process.on('unhandledRejection', (reason) => {
  console.error('kubedesk: unhandled rejection (continuing):', reason);
});

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('kubedesk:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
