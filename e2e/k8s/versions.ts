// The pinned control plane (issue 30): one Kubernetes release and the etcd and kwok that go with
// it, and where their binaries are cached. Change a version here and the next run builds anew.
import { homedir } from 'node:os'
import { join } from 'node:path'

/** k8s.io/kubernetes: kube-apiserver, kube-controller-manager, kube-scheduler. The staging modules (k8s.io/api …) are pinned to `v0.<minor>.<patch>`. */
export const KUBERNETES_VERSION = 'v1.37.2'
/** go.etcd.io/etcd/server/v3 (the `etcd` binary); Kubernetes v1.37 is tested against etcd 3.6/3.7. */
export const ETCD_VERSION = 'v3.7.3'
/** sigs.k8s.io/kwok: the fake nodes (a kubelet's API-side behaviour, no containers). */
export const KWOK_VERSION = 'v0.8.0'

/** The binaries a control plane needs, by their upstream names. */
export const BINARIES = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'] as const
export type BinaryName = (typeof BINARIES)[number]

/** `~/.cache/k8s-collector/control-plane` (or under `$XDG_CACHE_HOME`): outside any clone, shared by every checkout of the machine. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'k8s-collector', 'control-plane')
}

/** The folder of one pinned set: `<cache>/<kubernetes>-etcd<etcd>-kwok<kwok>`; binaries in `bin/`. */
export function pinnedDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), `${KUBERNETES_VERSION}-etcd${ETCD_VERSION.slice(1)}-kwok${KWOK_VERSION.slice(1)}`)
}
