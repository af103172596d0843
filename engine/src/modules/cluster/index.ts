export { ClusterModule, CLUSTER_MODULE, createClusterModule } from './cluster-module.js';
export { CLUSTER_STATUS_FUNCTION } from './status.js';
