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

export interface FakeApi {
  transport: FakeTransport;
  client: ApiClient;
  factory: SharedInformerFactory;
}

export function fakeApi(transport: FakeTransport = new FakeTransport(), options?: InformerFactoryOptions): FakeApi {
  const client = new ApiClient(transport);
  return { transport, client, factory: new SharedInformerFactory(client, options) };
}

interface Component {
  dispose(): unknown;
}

export interface ComponentOnFakeApi<C> extends FakeApi {
  controller: C;
  /** Disposes the component, then the informers. */
  stop(): Promise<void>;
}

/**
 * Builds a component on the fake API and starts and syncs the informers, leaving the component
 * itself unstarted: the test drives its `reconcile`. It is stopped when the test finishes.
 */
export async function syncOnFakeApi<C extends Component>(transport: FakeTransport, make: (client: ApiClient, factory: SharedInformerFactory) => C, options?: InformerFactoryOptions): Promise<ComponentOnFakeApi<C>> {
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
export async function startOnFakeApi<C extends Component & { start(): unknown }>(transport: FakeTransport, make: (client: ApiClient, factory: SharedInformerFactory) => C, options?: InformerFactoryOptions): Promise<ComponentOnFakeApi<C>> {
  const started = await syncOnFakeApi(transport, make, options);
  await started.controller.start();
  return started;
}
