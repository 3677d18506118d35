#!/usr/bin/env node
// The `kubedesk` command: loads the bundle built by `npm run build`.
import '../dist/kubedesk.mjs';
