// What a component under unit test runs against: a FakeTransport, an ApiClient on it and a
// SharedInformerFactory, with the informers started and synced before the component starts (as
// kube-controller-manager waits for caches before running controllers).
import { ApiClient } from '../../main/client/apiClient';
import { SharedInformerFactory } from '../../main/client/informer';
import { FakeTransport } from './fakeTransport';

export interface FakeApi {
  transport: FakeTransport;
  client: ApiClient;
  factory: SharedInformerFactory;
}

export function fakeApi(transport: FakeTransport = new FakeTransport()): FakeApi {
  const client = new ApiClient(transport);
  return { transport, client, factory: new SharedInformerFactory(client) };
}

/** Builds a component on the fake API, starts and syncs the informers, then starts the component. */
export async function startOnFakeApi<C extends { start(): unknown }>(transport: FakeTransport, make: (client: ApiClient, factory: SharedInformerFactory) => C): Promise<FakeApi & { controller: C }> {
  const api = fakeApi(transport);
  const controller = make(api.client, api.factory);
  api.factory.start();
  await api.factory.waitForCacheSync();
  await controller.start();
  return { ...api, controller };
}
