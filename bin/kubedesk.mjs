#!/usr/bin/env node
// The `kubedesk` command: loads the bundle built by `npm run build`, which keeps V8's code cache of
// the cluster's code itself (main/app/codeCache.ts). On Node 22.1+ module.enableCompileCache does
// the same for the few modules node's own loaders read (better-sqlite3's JavaScript).
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/kubedesk.mjs');
