// What a component under unit test runs against: a FakeTransport, an ApiClient on it and a
// SharedInformerFactory, with the informers started and synced before the component starts (as
// kube-controller-manager waits for caches before running controllers); and the way a test stops
// it again.
import { onTestFinished } from 'vitest';
import { ApiClient } from '../../main/client/apiClient';
import { SharedInformerFactory, type InformerOptions, type InformerScope } from '../../main/client/informer';

/** Options every informer of the factory gets (`freeze`, resync…). */
type InformerFactoryOptions = Omit<InformerOptions, keyof InformerScope>;
import { FakeTransport } from './fakeTransport';

export interface FakeApi<T extends FakeTransport = FakeTransport> {
  transport: T;
  client: ApiClient;
  factory: SharedInformerFactory;
}

export function fakeApi<T extends FakeTransport = FakeTransport>(transport: T = new FakeTransport() as T, options?: InformerFactoryOptions): FakeApi<T> {
  const client = new ApiClient(transport);
  return { transport, client, factory: new SharedInformerFactory(client, options) };
}

interface Component {
  dispose(): unknown;
}

export interface ComponentOnFakeApi<C, T extends FakeTransport = FakeTransport> extends FakeApi<T> {
  controller: C;
  /** Disposes the component, then the informers. */
  stop(): Promise<void>;
}

/**
 * Builds a component on the fake API and starts and syncs the informers, leaving the component
 * itself unstarted: the test drives its `reconcile`. It is stopped when the test finishes.
 */
export async function syncOnFakeApi<C extends Component, T extends FakeTransport>(transport: T, make: (client: ApiClient, factory: SharedInformerFactory) => C, options?: InformerFactoryOptions): Promise<ComponentOnFakeApi<C, T>> {
  const api = fakeApi(transport, options);
  const controller = make(api.client, api.factory);
  const stop = async () => {
    await controller.dispose();
    api.factory.dispose();
  };
  onTestFinished(stop);
  api.factory.start();
  await api.factory.waitForCacheSync();
  return { ...api, controller, stop };
}

/** Builds a component on the fake API, starts and syncs the informers, then starts the component; it is stopped when the test finishes. */
export async function startOnFakeApi<C extends Component & { start(): unknown }, T extends FakeTransport>(transport: T, make: (client: ApiClient, factory: SharedInformerFactory) => C, options?: InformerFactoryOptions): Promise<ComponentOnFakeApi<C, T>> {
  const started = await syncOnFakeApi(transport, make, options);
  await started.controller.start();
  return started;
}
