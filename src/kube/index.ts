// The Kubernetes watch layer: a client for the API server and the three list+watch streams
// (pods, replicasets, jobs) as AsyncIterables of StreamEvents (docs/behaviour.md §1, §8; docs/kube-api.md).
//
//   const client = createKubeClient({ kubeconfigPath })          // or KUBECONFIG / ~/.kube/config / in-cluster
//   const pods = watchPods(client, { signal })                    // AsyncIterable<StreamEvent<PodMeta>> + stats
//   for await (const ev of pods) { … }                            // init, initApply…, initDone, apply, delete, unavailable
export { createKubeClient, loadKubeConfig } from './client.ts'
export type { ApiProtocol, KubeClient, KubeClientOptions, KubeRequestOptions, KubeResponse, KubeSendOptions, KubeWriteClient, WatchListSupport } from './client.ts'
export { requestJson } from './request.ts'
export type { JsonRequest, JsonResponse } from './request.ts'
export { watchJobs, watchPods, watchReplicaSets, watchResource } from './stream.ts'
export type { WatchOptions, WatchStream } from './stream.ts'
export type { WatchPhase, WatchStats } from './stats.ts'
export type { RelistCause } from './watcher.ts'
export { jobsResource, podsResource, replicaSetsResource, RESOURCE_PATHS } from './resources.ts'
export type { ResourceSpec } from './resources.ts'
export type { BackoffConfig } from '../util/backoff.ts'
export {
  KubeAbortedError,
  KubeApiError,
  KubeConfigError,
  KubeDecodeError,
  KubeIdleTimeoutError,
  KubeInitialEventsTimeoutError,
  KubeShortWatchError,
  KubeTransportError,
  isGone,
  isUnavailable,
} from './errors.ts'
export type { KubeError } from './errors.ts'
