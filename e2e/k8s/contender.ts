// Another collector (a contender, issue 31) beside ours against the same API server and the same
// tap: started as an arbitrary command with the upstream collectors' environment, and compared
// with ours pod by pod and message by message.
import { spawn, type ChildProcess } from 'node:child_process'
import type { EventPage, MessageRecord, TapRecord } from '../../src/tap/index.ts'
import type { ExpectedPod } from '../harness/expect.ts'

/** A contender process: `COMMAND` under `/bin/sh -c`, in its own process group. */
export interface ContenderProcess {
  readonly name: string
  readonly child: ChildProcess
  readonly stderr: () => string
  /** SIGKILLs the whole process group (the shell and what it started). */
  kill(): Promise<void>
}

/**
 * Starts `command` as the upstream collectors are configured: `KUBECONFIG`, `EBPF_NET_INTAKE_HOST`,
 * `EBPF_NET_INTAKE_PORT`, and `K8S_COLLECTOR_HOSTNAME` (the Rust collector's `connect.hostname`).
 */
export function startContender(name: string, command: string, opts: { kubeconfig: string; intakePort: number; hostname: string; env?: Record<string, string> }): ContenderProcess {
  const child = spawn('/bin/sh', ['-c', command], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      KUBECONFIG: opts.kubeconfig,
      EBPF_NET_INTAKE_HOST: '127.0.0.1',
      EBPF_NET_INTAKE_PORT: String(opts.intakePort),
      K8S_COLLECTOR_HOSTNAME: opts.hostname,
      ...opts.env,
    },
  })
  let err = ''
  const keep = (d: Buffer) => {
    err += d.toString()
    if (err.length > 2_000_000) err = err.slice(-1_000_000)
  }
  child.stderr!.on('data', keep)
  child.stdout!.on('data', keep)
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  return {
    name,
    child,
    stderr: () => err,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
      await exited
    },
  }
}

/** One field of one pod that two collectors' reducer states disagree on. */
export interface PodDifference {
  readonly pod: string
  readonly field: string
  readonly ours: unknown
  readonly theirs: unknown
}

/** Two reducer states side by side, pod by pod (by uid). */
export interface PodComparison {
  readonly onlyOurs: readonly string[]
  readonly onlyTheirs: readonly string[]
  readonly differences: readonly PodDifference[]
}

/** Compares the pods two connections hold, field by field. */
export function comparePods(ours: readonly ExpectedPod[], theirs: readonly ExpectedPod[]): PodComparison {
  const byUid = new Map(theirs.map((p) => [p.uid, p]))
  const onlyOurs: string[] = []
  const differences: PodDifference[] = []
  for (const o of ours) {
    const t = byUid.get(o.uid)
    byUid.delete(o.uid)
    if (!t) {
      onlyOurs.push(`${o.ns}/${o.podName}`)
      continue
    }
    for (const field of ['ns', 'podName', 'ip', 'ownerKind', 'ownerUid', 'ownerName', 'isHostNetwork', 'version', 'containers'] as const) {
      const a = field === 'containers' ? o.containers.join(',') : o[field]
      const b = field === 'containers' ? t.containers.join(',') : t[field]
      if (a !== b) differences.push({ pod: `${o.ns}/${o.podName}`, field, ours: a, theirs: b })
    }
  }
  return { onlyOurs, onlyTheirs: [...byUid.values()].map((p) => `${p.ns}/${p.podName}`), differences }
}

/** A dotted IPv4 address with its four bytes in reverse order. */
export const reversedIp = (ip: string) => ip.split('.').reverse().join('.')

/** What a connection sent, counted: messages by type, epochs, and repeats (behaviour.md §5). */
export interface StreamSummary {
  readonly byType: Record<string, number>
  readonly epochs: string[]
  /** `pod_new_with_name` repeating the pod's previous announcement on the connection, unchanged. */
  readonly repeatedAnnouncements: number
  /** `pod_container` repeating a tuple already sent for the pod since the last resync. */
  readonly repeatedContainers: number
  /** `pod_container` with an empty container id. */
  readonly containersWithoutId: number
}

/** Every record of connection `conn` in the tap's log. */
export async function recordsOfConnection(events: (since: number) => Promise<EventPage>, conn: number): Promise<MessageRecord[]> {
  const out: MessageRecord[] = []
  for (let since = 0; ; ) {
    const page = await events(since)
    for (const r of page.events as TapRecord[]) if (r.conn === conn && 'fields' in r) out.push(r as MessageRecord)
    if (page.events.length === 0 || page.next === since) return out
    since = page.next
  }
}

export function summarizeStream(records: readonly MessageRecord[]): StreamSummary {
  const byType: Record<string, number> = {}
  const epochs: string[] = []
  const last = new Map<string, string>()
  const sent = new Set<string>()
  let repeatedAnnouncements = 0
  let repeatedContainers = 0
  let containersWithoutId = 0
  for (const r of records) {
    byType[r.type] = (byType[r.type] ?? 0) + 1
    const f = r.fields
    if (r.type === 'pod_resync') {
      epochs.push(String(f.resyncCount ?? f.resync_count ?? JSON.stringify(f)))
      last.clear()
      sent.clear()
    } else if (r.type === 'pod_new_with_name') {
      const tuple = JSON.stringify(f)
      if (last.get(String(f.uid)) === tuple) repeatedAnnouncements++
      last.set(String(f.uid), tuple)
    } else if (r.type === 'pod_container') {
      if (!f.containerId) containersWithoutId++
      const key = `${f.uid}|${f.containerId}|${f.containerName}|${f.containerImage}`
      if (sent.has(key)) repeatedContainers++
      sent.add(key)
    } else if (r.type === 'pod_delete') {
      last.delete(String(f.uid))
    }
  }
  return { byType, epochs, repeatedAnnouncements, repeatedContainers, containersWithoutId }
}
