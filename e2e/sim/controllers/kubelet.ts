// Scheduler and kubelet of the simulated nodes: binds pods to nodes, starts them (IPs, container ids),
// finishes Job pods after their run time, and completes graceful deletions.
import { randomHex, timestamp } from '../api/meta.ts'
import type { Entry } from '../store/entry.ts'
import { R, deleteObject, finished, patchObject, terminating, writeStatus, type ControllerEnv, type Reconcile } from './runtime.ts'

/** Pod annotation: how long a Job's pod runs before it succeeds, ms (overrides `jobRunMs`). */
export const RUN_MS_ANNOTATION = 'sim.k8s-collector.io/run-ms'

/** How often a pod waiting for a free IP on its node tries again. */
const NO_IP_RETRY_MS = 1_000

/** Node `node-i` (1-based): pod CIDR 10.244.i.0/24, host IP 172.18.0.(i+1). */
export function nodeAddresses(i: number): { podCidr: string; hostIp: string } {
  return { podCidr: `10.244.${i}.0/24`, hostIp: `172.18.0.${i + 1}` }
}

export function nodeObject(i: number): object {
  const { podCidr, hostIp } = nodeAddresses(i)
  const name = `node-${i}`
  return {
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' },
    },
    spec: { podCIDR: podCidr, podCIDRs: [podCidr], providerID: `sim://${name}` },
    status: {
      addresses: [{ type: 'InternalIP', address: hostIp }, { type: 'Hostname', address: name }],
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
      nodeInfo: { kubeletVersion: 'v1.32.2-sim', containerRuntimeVersion: 'containerd://1.7.24', operatingSystem: 'linux', architecture: 'amd64' },
    },
  }
}

/** The scheduler + kubelet reconcile of one pod key. */
export function kubelet(env: ControllerEnv): { reconcile: Reconcile; released(pod: Entry): void } {
  const pending = new Set<string>() // `${uid}:${step}` with a timer running
  const ips = new Map<number, Set<number>>() // node index → host octets in use
  let nextNode = 0

  const once = (pod: Entry, step: string, ms: number, fn: () => void) => {
    const id = `${pod.uid}:${step}`
    if (pending.has(id)) return
    pending.add(id)
    env.later(ms, () => {
      pending.delete(id)
      fn()
    })
  }
  const current = (pod: Entry) => {
    const e = env.store.get(R.pods, pod.key)
    return e && e.uid === pod.uid ? e : undefined
  }

  const nodeIndex = (name: string | undefined) => {
    const m = /^node-(\d+)$/.exec(name ?? '')
    return m ? Number(m[1]) : 0
  }
  /** A free pod IP of the node, or undefined when its /24 is used up. */
  const allocate = (node: number): string | undefined => {
    let used = ips.get(node)
    if (!used) ips.set(node, (used = new Set()))
    for (let octet = 2; octet < 255; octet++) {
      if (!used.has(octet)) {
        used.add(octet)
        return `10.244.${node}.${octet}`
      }
    }
    return undefined
  }

  const schedule = (pod: Entry) => {
    const nodes = env.store.entries(R.nodes)
    if (!nodes.length) return
    const node = nodes[nextNode++ % nodes.length]
    patchObject(env, pod, { spec: { nodeName: node.name } })
  }

  const start = (pod: Entry) => {
    const p = current(pod)
    if (!p || terminating(p) || p.obj.status?.phase !== 'Pending' || !p.obj.spec?.nodeName) return
    const node = nodeIndex(p.obj.spec.nodeName)
    const { hostIp } = nodeAddresses(node)
    const podIp = p.obj.spec.hostNetwork ? hostIp : allocate(node)
    // As a kubelet whose network plugin has no address left (FailedCreatePodSandBox): the pod stays
    // Pending and is tried again, instead of the whole simulator failing in a timer.
    if (podIp === undefined) return once(pod, 'start', NO_IP_RETRY_MS, () => start(pod))
    const now = timestamp()
    const containers: any[] = p.obj.spec.containers ?? []
    writeStatus(env, p, {
      ...p.obj.status,
      phase: 'Running',
      conditions: conditions(now, true),
      hostIP: hostIp, hostIPs: [{ ip: hostIp }],
      podIP: podIp, podIPs: [{ ip: podIp }],
      startTime: now,
      containerStatuses: containers.map((c) => ({
        name: c.name,
        state: { running: { startedAt: now } },
        lastState: {},
        ready: true,
        restartCount: 0,
        image: c.image,
        imageID: `sim.local/${String(c.image).split(':')[0]}@sha256:${randomHex(64)}`,
        containerID: `containerd://${randomHex(64)}`,
        started: true,
      })),
    })
  }

  const finish = (pod: Entry) => {
    const p = current(pod)
    if (!p || terminating(p) || p.obj.status?.phase !== 'Running') return
    const now = timestamp()
    writeStatus(env, p, {
      ...p.obj.status,
      phase: 'Succeeded',
      conditions: conditions(now, false),
      containerStatuses: (p.obj.status.containerStatuses ?? []).map((c: any) => ({
        ...c,
        state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: c.state?.running?.startedAt ?? now, finishedAt: now, containerID: c.containerID } },
        ready: false,
        started: false,
      })),
    })
  }

  const stop = (pod: Entry) => {
    const p = current(pod)
    if (!p) return
    if (!finished(p) && p.obj.status?.phase === 'Running') {
      // Containers stopped: the kubelet reports them terminated before it removes the pod.
      const now = timestamp()
      writeStatus(env, p, {
        ...p.obj.status,
        conditions: conditions(now, false),
        containerStatuses: (p.obj.status.containerStatuses ?? []).map((c: any) => ({
          ...c,
          state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: c.state?.running?.startedAt ?? now, finishedAt: now, containerID: c.containerID } },
          ready: false,
          started: false,
        })),
      })
    }
    const q = current(pod)
    if (q) deleteObject(env, q, { gracePeriodSeconds: 0 })
  }

  /** Marks a pod's IP as used: pods restored from saved state or bulk-created keep theirs. */
  const claim = (pod: Entry) => {
    const ip: string | undefined = pod.obj.status?.podIP
    if (!ip || pod.obj.spec?.hostNetwork) return
    const parts = ip.split('.')
    const node = Number(parts[2])
    let used = ips.get(node)
    if (!used) ips.set(node, (used = new Set()))
    used.add(Number(parts[3]))
  }

  const reconcile: Reconcile = (key) => {
    const pod = env.store.get(R.pods, key)
    if (!pod) return
    claim(pod)
    const phase = pod.obj.status?.phase
    if (terminating(pod)) {
      if (pod.obj.spec?.nodeName) once(pod, 'stop', env.config.podStopDelayMs, () => stop(pod))
      return
    }
    if (!pod.obj.spec?.nodeName) {
      schedule(pod)
      return
    }
    if (phase === 'Pending') {
      once(pod, 'start', env.config.podStartDelayMs, () => start(pod))
      return
    }
    if (phase === 'Running' && pod.obj.spec?.restartPolicy !== 'Always') {
      const annotated = Number(pod.obj.metadata.annotations?.[RUN_MS_ANNOTATION])
      const runMs = Number.isFinite(annotated) && annotated >= 0 ? annotated : env.config.jobRunMs
      once(pod, 'finish', runMs, () => finish(pod))
    }
  }

  /** A pod left the store: its IP is free again. */
  const released = (pod: Entry) => {
    const ip: string | undefined = pod.obj.status?.podIP
    if (!ip || pod.obj.spec?.hostNetwork) return
    const parts = ip.split('.')
    ips.get(Number(parts[2]))?.delete(Number(parts[3]))
  }

  return { reconcile, released }
}

function conditions(now: string, ready: boolean): object[] {
  const s = ready ? 'True' : 'False'
  return [
    { type: 'PodReadyToStartContainers', status: s, lastProbeTime: null, lastTransitionTime: now },
    { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: now },
    { type: 'Ready', status: s, lastProbeTime: null, lastTransitionTime: now },
    { type: 'ContainersReady', status: s, lastProbeTime: null, lastTransitionTime: now },
    { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now },
  ]
}
