// Request bodies captured from kubectl 1.35 and helm 4 (shared/research/request-logs), for tests.
// The logs stored each body as UTF-8 text, so every byte >= 0x80 became U+FFFD. The bodies below
// without such bytes are exact; the Deployment and helm Secret had theirs restored from the
// structure: the lost bytes were two-byte field tags (fields 16-24) and the low bytes of lengths,
// each recomputed from where its message ends (the helm release payload then gunzips cleanly).

function fromBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** `kubectl create secret generic s1 --from-literal=a=b` (writes.log) */
export const kubectlCreateSecretGeneric = fromBase64(
  'azhzAAoMCgJ2MRIGU2VjcmV0Eh4KEgoCczESABoAIgAqADIAOABCABIGCgFhEgFiGgAaACIA',
);

/** `kubectl create namespace foo` (writes.log) */
export const kubectlCreateNamespace = fromBase64(
  'azhzAAoPCgJ2MRIJTmFtZXNwYWNlEhsKEwoDZm9vEgAaACIAKgAyADgAQgASABoCCgAaACIA',
);

/** `kubectl create configmap c1 --from-literal=x=y` (writes.log) */
export const kubectlCreateConfigMap = fromBase64(
  'azhzAAoPCgJ2MRIJQ29uZmlnTWFwEhwKEgoCYzESABoAIgAqADIAOABCABIGCgF4EgF5GgAiAA==',
);

/** `kubectl create deployment d1 --image=nginx` (writes.log, restored) */
export const kubectlCreateDeployment = fromBase64(
  'azhzAAoVCgdhcHBzL3YxEgpEZXBsb3ltZW50EqcBCh0KAmQxEgAaACIAKgAyADgAQgBaCQoDYXBwEgJkMRJ4CAESCwoJCgNh' +
  'cHASAmQxGl8KGwoAEgAaACIAKgAyADgAQgBaCQoDYXBwEgJkMRJAEiIKBW5naW54EgVuZ2lueCoAQgBqAHIAgAEAiAEAkAEA' +
  'ogEAGgAyAEIASgBSAFgAYABoAIIBAIoBAJoBAMIBACICCgAoADgAGgwIABAAGAAgACgAOAAaACIA',
);

/** `kubectl create token default` (writes.log) */
export const kubectlCreateToken = fromBase64(
  'azhzAAooChhhdXRoZW50aWNhdGlvbi5rOHMuaW8vdjESDFRva2VuUmVxdWVzdBIaChAKABIAGgAiACoAMgA4AEIAEgAaBAoA' +
  'EgAaACIA',
);

/** `kubectl auth can-i get pods` (writes.log) */
export const kubectlAuthCanI = fromBase64(
  'azhzAAoyChdhdXRob3JpemF0aW9uLms4cy5pby92MRIXU2VsZlN1YmplY3RBY2Nlc3NSZXZpZXcSPAoQCgASABoAIgAqADIA' +
  'OABCABIeChwKB2RlZmF1bHQSA2dldBoAIgAqBHBvZHMyADoAGggIABIAGgAgABoAIgA=',
);

/** helm 4 install's release Secret POST (helm.log, restored) */
export const helmReleaseSecret = fromBase64(
  'azhzAAoMCgJ2MRIGU2VjcmV0EqMKCokBChpzaC5oZWxtLnJlbGVhc2UudjEucmVsMS52MRIAGgAiACoAMgA4AEIAWhcKCWNy' +
  'ZWF0ZWRBdBIKMTc5NTMwNDUyOFoMCgRuYW1lEgRyZWwxWg0KBW93bmVyEgRoZWxtWhkKBnN0YXR1cxIPcGVuZGluZy1pbnN0' +
  'YWxsWgwKB3ZlcnNpb24SATESgAkKB3JlbGVhc2US9AhINHNJQUFBQUFBQUMvNXhWVzNPYk9CVCtLOHpaVit5Q1lwSllNMzJJ' +
  'YVVKcGJ0TTBOWmYxVGtlQURISWt3U0JoeDhuNHYrOEkzN0xUN21aM05UeVk3NXlqN3p1Y2kxOUJFa0VCUTB1NUN6WXdPYThC' +
  'djhLY3RVci9LR2pENnpVdEFBTnkwT25BZFFmSWZVUW5lSVN3Y3o1RW8vUHo4ZGdialZLd2daUC9HRkJRbGJlczBheVdnQ0dV' +
  'VERQQ0xTYVZKcHhiblN4b3V5SnJzRUZwb2pzRkdCb3FDeWJMd2M0SE5qYmtGV20xRVN5b0pnWFJ4UHplcFNUV1c2c05TOXFx' +
  'TFkwemRJY08yRUFhTmoyQVM5UWp6UkV4VGhzYmVKMC9BWllkNXpab0tocE9ORldBZno5UUhNQVB1Uml1aWVBbXIxNEZKUEdr' +
  'bVlycE9rZDhtUzNxc2xoY1hoUEV1L1JUWFg1RjR5NFZYRDVHVnl0ZnVMd0lycDZTK0tHNkwrc3lETHdxaTc2ZmhwLzFXZWg3' +
  'MzlMb21TZnhIYjk1NnZGeUhqczZRYW4weFVOVkJKZW5QcnNvVXpGZTNyTUpTK0x3R213UWRhRlpyKy9uSXB3TmtUc2FuWG5P' +
  'dVp2Q3h2NUZKdHNhdnBOTkVrOVcrWHFNYnI4MkxZbThwM3MydVV6amljcE91RTRqei9rL1dSVm95bng1dDBxajJ6NnJYRXhY' +
  'V2NBWFNYeTdqNHVTNk5sTjQ5dnVqYzNFWG9mKzVLVy84K1JobVMvcTY5Qy9LTVBBcllyZ3JuNE1ybGdhUGIvY3M4bVowWDNQ' +
  'SmlkcDlHVnNPSXBncXZQZ3VTcUM3ejFuNkU5MEdqOVVhWERsSkkrN2UveUxNdnVIT3d4M0hrd1hmWjY5LzJTUkljOUpJdDZs' +
  'OFplWEkzNmhqOStoNE1rUkw4T0E2eVFxdUxtZnJpKzZxYmhTUlRSOXVSRmJQUHpzanYzeTQ4ZC9VVjBQbmJpbm85TVVObi9Z' +
  'c0NTOE15MzdDa3lRMGdUSmtzbG43QTZSQnphMHRPRXNKd3F3dTdGQjVSVVZaTi93Mjdjam0rTTQ3cUIvSGgwSDk0OFo0em5q' +
  'aG1BYjg1NDJCeUVQalQzVGVTQ0laSE9xTkdBWURBWXorWnYxcmU3YW5HSnJON2dmZnBxdW1Uek9MYmFXN2t3K01WbGd5Ni9s' +
  'bkpXM3BKbkovUjdBTTJsWnByZXhaVmJiSUorWE0za3d6T3NhV3hscFovSmQ2amZqOEZkNjBqVHF3MUhEcDk1UFVLbi9Yc1NL' +
  'WmpPcEdwcjNodjNIeDVaclhoWGxOTmQxMjlzc1N4Q2RWemNrbzF4aDY1VTBEYlpXTk5zWTQxN2Mzdk10bXpuOGwxR1dkV0Ey' +
  'SjYrbEprelNWaDJnd1U1ckw5UGFuYjV2c0hWc201bDh1MUZkdTk4Z3FpRzVLWHRCNTZUamVydFArZnFIb0xxcXpkK0JVZ1Ey' +
  'ZndZQUFQLy80aUtYYW00R0FBQT0aEmhlbG0uc2gvcmVsZWFzZS52MRoAIgA=',
);
