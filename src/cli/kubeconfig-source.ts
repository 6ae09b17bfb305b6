// Which kubeconfig `run` uses: the option-table type of `--kubeconfig` / `KUBECONFIG` and the default.
import { join } from 'node:path'
import type { Computed, DefaultContext, ValueType } from './options.ts'

/** Where the API server and credentials come from, in the order the loader tries them (src/kube/client.ts). */
export type KubeconfigSource =
  | { readonly source: 'flag'; readonly path: string }
  /** One file or a list separated by ':' (merged by the loader). */
  | { readonly source: 'KUBECONFIG'; readonly path: string }
  | { readonly source: 'default file'; readonly path: string }
  | { readonly source: 'in-cluster'; readonly path: string }
  | { readonly source: 'none' }

/** The service account directory the loader falls back to inside a pod (token, CA, namespace). */
export const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount'

export const kubeconfigPath: ValueType<KubeconfigSource> = {
  hint: 'FILE',
  accepts: 'file name (`KUBECONFIG`: a `:`-separated list)',
  parse: (text, from) => (from.kind === 'flag' ? { source: 'flag', path: text } : { source: 'KUBECONFIG', path: text }),
}

/** Without flag and `KUBECONFIG`: `~/.kube/config` if it exists, else the in-cluster service account if mounted. */
export const defaultKubeconfig: Computed<KubeconfigSource> = {
  text: '`~/.kube/config`, then the in-cluster service account',
  compute(ctx: DefaultContext): KubeconfigSource {
    const home = ctx.env.HOME
    const file = home ? join(home, '.kube', 'config') : undefined
    if (file && ctx.fileExists(file)) return { source: 'default file', path: file }
    if (ctx.fileExists(join(SERVICE_ACCOUNT, 'token'))) return { source: 'in-cluster', path: SERVICE_ACCOUNT }
    return { source: 'none' }
  },
}

/** One line for the start-up log: `/root/.kube/config (default file)`. */
export function describeKubeconfig(k: KubeconfigSource): string {
  if (k.source === 'none') return 'none found'
  return `${k.path} (${k.source === 'flag' ? '--kubeconfig' : k.source})`
}
