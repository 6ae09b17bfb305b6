// What the reducer should hold for a cluster (docs/behaviour.md §3), computed from the cluster's own
// objects, and the tap's view of a connection in the same shape.
import { isWatchedOwnerKind, ownerKindCode, OwnerKindCode, WATCHED_OWNER_KINDS } from '../../src/model/owner-kinds.ts'
import type { ConnectionSnapshot, PodSnapshot, TapState } from '../../src/tap/index.ts'
import { waitFor } from './wait.ts'

/** The parts of a Kubernetes object the expectations read. */
export interface K8sObject {
  metadata: {
    uid: string
    name: string
    namespace?: string
    deletionTimestamp?: string
    ownerReferences?: Array<{ kind: string; uid: string; name: string; controller?: boolean }>
  }
  spec?: { hostNetwork?: boolean }
  status?: { phase?: string; podIP?: string; containerStatuses?: Array<{ image: string; containerID?: string; restartCount?: number }> }
}

/** A snapshot of the cluster: what `kubectl get pods,rs,jobs -A -o json` returns. */
export interface ClusterObjects {
  readonly pods: readonly K8sObject[]
  readonly replicasets: readonly K8sObject[]
  readonly jobs: readonly K8sObject[]
}

/** One pod as the reducer should hold it (and as the tap reports it). */
export interface ExpectedPod {
  uid: string
  ns: string
  podName: string
  ip: string
  ownerKind: number
  ownerUid: string
  ownerName: string
  isHostNetwork: boolean
  version: string
  containers: string[]
  /** Container restarts the cluster reports: the tap may hold that many earlier container ids too. */
  restarts?: number
}

const controllerOf = (o: K8sObject) => o.metadata.ownerReferences?.find((r) => r.controller)
const byUid = (a: { uid: string }, b: { uid: string }) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0)

/** The announced pods the cluster implies: pods with an IP, not being deleted, owner escalated. */
export function expectedPods(cluster: ClusterObjects): ExpectedPod[] {
  const owners = new Map<string, K8sObject>()
  for (const o of [...cluster.replicasets, ...cluster.jobs]) owners.set(o.metadata.uid, o)
  const out: ExpectedPod[] = []
  for (const p of cluster.pods) {
    if (!p.status?.podIP || p.metadata.deletionTimestamp) continue
    let owner: { kind: number; uid: string; name: string } = { kind: OwnerKindCode.NoOwner, uid: '', name: p.metadata.name }
    const c = controllerOf(p)
    if (c) {
      owner = { kind: ownerKindCode(c.kind), uid: c.uid, name: c.name }
      const up = isWatchedOwnerKind(c.kind) && owners.get(c.uid) ? controllerOf(owners.get(c.uid)!) : undefined
      if (up && isWatchedOwnerKind(c.kind) && up.kind === WATCHED_OWNER_KINDS[c.kind].controller) {
        owner = { kind: ownerKindCode(up.kind), uid: up.uid, name: up.name }
      }
    }
    const statuses = p.status.containerStatuses ?? []
    out.push({
      uid: p.metadata.uid,
      ns: p.metadata.namespace ?? '',
      podName: p.metadata.name,
      ip: /^\d+\.\d+\.\d+\.\d+$/.test(p.status.podIP) ? p.status.podIP : '0.0.0.0',
      ownerKind: owner.kind,
      ownerUid: owner.uid,
      ownerName: owner.name,
      isHostNetwork: p.spec?.hostNetwork === true,
      version: statuses.map((s) => s.image).filter(Boolean).sort().map((i) => `'${i}'`).join(','),
      containers: statuses.filter((s) => s.containerID).map((s) => s.containerID!.replace(/^[a-z]+:\/\//, '')).sort(),
      restarts: statuses.reduce((n, s) => n + (s.restartCount ?? 0), 0),
    })
  }
  return out.sort(byUid)
}

/** The tap's view of one connection in the same shape. */
export function heldPods(conn: ConnectionSnapshot | undefined): ExpectedPod[] {
  return (conn?.pods ?? [])
    .map((p: PodSnapshot) => ({
      uid: p.uid,
      ns: p.ns,
      podName: p.podName,
      ip: p.ip,
      ownerKind: p.ownerKind,
      ownerUid: p.ownerUid,
      ownerName: p.ownerName,
      isHostNetwork: p.isHostNetwork,
      version: p.version,
      containers: p.containers.map((c) => c.id.replace(/^[a-z]+:\/\//, '')).sort(),
    }))
    .sort(byUid)
}

/** The newest open connection from the collector called `hostname`. */
export function openConnection(state: TapState, hostname: string, notId?: number): ConnectionSnapshot | undefined {
  return [...state.connections].reverse().find((c) => c.open && c.hostname === hostname && c.id !== notId)
}

/**
 * Equal details, and the held containers are the current ones plus at most one earlier id per
 * restart (the reducer keeps every container id it was sent for a pod; a restarted container has a new one).
 */
function samePod(want: ExpectedPod, got: ExpectedPod): boolean {
  const { containers: wc, restarts = 0, ...wantRest } = want
  const { containers: gc, restarts: _ignored, ...gotRest } = got
  if (JSON.stringify(wantRest) !== JSON.stringify(gotRest)) return false
  const held = new Set(gc)
  return wc.every((id) => held.has(id)) && gc.length - wc.length <= restarts
}

/** A readable difference between expected and held pods ('' when equal). */
export function diffPods(want: readonly ExpectedPod[], got: readonly ExpectedPod[]): string {
  const lines: string[] = []
  const held = new Map(got.map((p) => [p.uid, p]))
  for (const w of want) {
    const g = held.get(w.uid)
    if (!g) lines.push(`missing ${w.ns}/${w.podName}`)
    else if (!samePod(w, g)) lines.push(`differs ${w.ns}/${w.podName}: want ${JSON.stringify(w)} got ${JSON.stringify(g)}`)
    held.delete(w.uid)
  }
  for (const g of held.values()) lines.push(`extra ${g.ns}/${g.podName} (${g.uid})`)
  return lines.join('\n')
}

/**
 * Waits until the tap's open connection from `hostname` holds exactly what the cluster implies
 * (scenario 8's quiescence check); returns that connection. `notId` skips a connection the caller
 * knows is going away (the tap may still show a killed collector's connection open for a moment).
 */
export async function converged(
  read: () => Promise<{ cluster: ClusterObjects; tap: TapState }>,
  hostname: string,
  timeoutMs = 20_000,
  notId?: number,
): Promise<ConnectionSnapshot> {
  let last = ''
  return waitFor(
    `the tap to hold exactly the cluster's pods (${hostname})`,
    async () => {
      const { cluster, tap } = await read()
      const conn = openConnection(tap, hostname, notId)
      const want = expectedPods(cluster)
      last = conn ? diffPods(want, heldPods(conn)) : notId === undefined ? 'no open connection' : `no open connection other than ${notId}`
      return conn && want.length > 0 && last === '' ? conn : undefined
    },
    { timeoutMs, describe: () => last },
  )
}
