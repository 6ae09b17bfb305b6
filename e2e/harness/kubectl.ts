// kubectl, the real client, as the suites' hands on a real API server (kind, the control plane).
import { exec } from './exec.ts'

/** Runs kubectl against one cluster; resolves with stdout. */
export type Kubectl = (args: readonly string[], opts?: { input?: string; timeoutMs?: number }) => Promise<string>

export function createKubectl(kubeconfig: string): Kubectl {
  return (args, opts = {}) => exec('kubectl', ['--kubeconfig', kubeconfig, ...args], { input: opts.input, timeoutMs: opts.timeoutMs ?? 60_000 })
}
