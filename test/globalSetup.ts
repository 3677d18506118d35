// Runs once before the end-to-end suites: checks Docker, unpacks kubectl/helm, builds the test
// images. Assumes `npm run build` already produced dist/ and bin/ (the `test` script does that).
// Tests read the results with `inject('kubectl')` etc., or from $KUBECTL / $HELM.
import type { TestProject } from 'vitest/node';
import { prepareTestEnvironment } from './support/environment';

declare module 'vitest' {
  export interface ProvidedContext {
    kubectl: string;
    helm: string;
    busyboxImage: string;
    dockerVersion: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const environment = await prepareTestEnvironment();
  // Workers are forked after global setup, so they inherit these too.
  process.env.KUBECTL = environment.kubectl;
  process.env.HELM = environment.helm;
  project.provide('kubectl', environment.kubectl);
  project.provide('helm', environment.helm);
  project.provide('busyboxImage', environment.images.busybox);
  project.provide('dockerVersion', environment.dockerVersion);
}
