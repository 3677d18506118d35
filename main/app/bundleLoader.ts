// The entry point built into dist/kubedesk.mjs: runs the cluster bundle (dist/kubedesk.cjs, one
// CommonJS file) through V8's code cache (codeCache.ts). This file imports only node's own modules
// and codeCache.ts, so it compiles in no time.
import { fileURLToPath } from 'node:url';
import { loadBundle } from './codeCache';

/** the bundle's content hash, set by scripts/build.mjs when it builds this file */
declare const KUBEDESK_BUNDLE_HASH: string;

loadBundle(fileURLToPath(new URL('./kubedesk.cjs', import.meta.url)), KUBEDESK_BUNDLE_HASH);
