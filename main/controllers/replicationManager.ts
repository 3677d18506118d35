// ReplicationManager: keeps `spec.replicas` pods of each core/v1 ReplicationController running,
// after upstream pkg/controller/replication/replication_controller.go, which is the ReplicaSet
// controller run on ReplicationControllers through informer and client adapters. Here the
// ReplicaSetController is given the ReplicationController kind (its resource, owner references,
// `/status` writes, and a selector that is a plain label map); the logic is the same code.
import type { ApiClient } from '../client/apiClient';
import type { SharedInformerFactory } from '../client/informer';
import { ReplicaSetController, replicationControllerKind, type ReplicaSetControllerOptions } from './replicaSetController';

export class ReplicationManager extends ReplicaSetController {
  constructor(client: ApiClient, factory: SharedInformerFactory, options: ReplicaSetControllerOptions = {}) {
    super(client, factory, options, replicationControllerKind);
  }
}
