#!/usr/bin/env node
// The `kubedesk` command: loads the bundle built by `npm run build`. On Node 22.1+ V8's code cache
// (module.enableCompileCache) spares later starts most of the bundle's compile time.
import module from 'node:module';

module.enableCompileCache?.();
await import('../dist/kubedesk.mjs');
