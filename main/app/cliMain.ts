// Entry point bundled into dist/kubedesk.mjs: runs the command line and exits with its code.
import { main } from './cli';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('kubedesk:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
