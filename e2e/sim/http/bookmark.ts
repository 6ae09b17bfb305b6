// BOOKMARK and ERROR watch lines: an empty object of the watched kind carrying only the resourceVersion (docs/kube-api.md WATCH).
import { Buffer } from 'node:buffer'
import type { ResourceInfo } from '../api/resources.ts'
import type { SimApiError } from '../api/errors.ts'

const TEMPLATE = '"template":{"metadata":{"creationTimestamp":null},"spec":{"containers":null}}'

/** What Go's encoder prints for the zero value of each kind's spec/status. */
const EMPTY_BODY: Record<string, string> = {
  Pod: '"spec":{"containers":null},"status":{}',
  ReplicaSet: `"spec":{"selector":null,${TEMPLATE}},"status":{"replicas":0}`,
  Deployment: `"spec":{"selector":null,${TEMPLATE},"strategy":{}},"status":{}`,
  DaemonSet: `"spec":{"selector":null,${TEMPLATE},"updateStrategy":{}},"status":{"currentNumberScheduled":0,"numberMisscheduled":0,"desiredNumberScheduled":0,"numberReady":0}`,
  StatefulSet: `"spec":{"selector":null,${TEMPLATE},"serviceName":"","updateStrategy":{}},"status":{"replicas":0,"availableReplicas":0}`,
  Job: `"spec":{${TEMPLATE}},"status":{}`,
  CronJob: `"spec":{"schedule":"","jobTemplate":{"metadata":{"creationTimestamp":null},"spec":{${TEMPLATE}}}},"status":{}`,
  Namespace: '"spec":{},"status":{}',
  Node: '"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntimeVersion":"","kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"","architecture":""}}',
  Lease: '"spec":{}',
}

/** Event kinds have no spec: their zero values per API group. */
const EMPTY_EVENT: Record<string, string> = {
  v1: '"involvedObject":{},"source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,"reportingComponent":"","reportingInstance":""',
  'events.k8s.io/v1': '"eventTime":null,"regarding":{},"deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null',
}

/**
 * A BOOKMARK line at `rv`. `initialEventsEnd` adds the `k8s.io/initial-events-end` annotation that
 * ends a streaming list's snapshot (KEP-3157).
 */
export function bookmarkLine(r: ResourceInfo, rv: number, meta: boolean, initialEventsEnd: boolean): Buffer {
  const annotations = initialEventsEnd ? ',"annotations":{"k8s.io/initial-events-end":"true"}' : ''
  const metadata = `"metadata":{"resourceVersion":"${rv}"${annotations}}`
  const object = meta
    ? `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",${metadata}}`
    : `{"kind":"${r.kind}","apiVersion":"${r.apiVersion}",${metadata},${(r.kind === 'Event' ? EMPTY_EVENT[r.apiVersion] : EMPTY_BODY[r.kind]) ?? '"spec":{}'}}`
  return Buffer.from(`{"type":"BOOKMARK","object":${object}}\n`)
}

/** An ERROR line carrying a Status (e.g. 410 Expired for a too-old resourceVersion). */
export function errorLine(err: SimApiError): Buffer {
  return Buffer.from(`{"type":"ERROR","object":${JSON.stringify(err.toStatus())}}\n`)
}
