// The TLS matrix's vocabulary (issue 33): a case, its set-up, the shared PKI, and the helpers that
// write kubeconfigs and build the cases that are plain variations of the shared PKI.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TransportReason } from '../../src/kube/transport-reason.ts'
import { waitFor } from '../harness/wait.ts'
import { startMatrixServer, type Authn, type MatrixServer, type MatrixServerOptions } from './api-server.ts'
import type { ConnectProxy } from './connect-proxy.ts'
import { createCa, type Issued, type TestCa } from './pki.ts'

/** The CA and the client certificate every case may use. */
export interface SharedPki {
  readonly ca: TestCa
  /** Issued by `ca` for 127.0.0.1, ::1 and localhost. */
  readonly server: Issued
  /** Issued by `ca`, CN=collector. */
  readonly client: Issued
}

export async function createSharedPki(): Promise<SharedPki> {
  const ca = await createCa('matrix-ca')
  return {
    ca,
    server: await ca.leaf({ cn: 'kube-apiserver', san: ['ip:127.0.0.1', 'ip:::1', 'dns:localhost'], usage: 'server' }),
    client: await ca.leaf({ cn: 'collector', o: 'system:collectors', usage: 'client' }),
  }
}

/** A collector of one runtime that connected (its requests are those with its User-Agent). */
export interface Connected {
  readonly runtime: string
  readonly stderr: () => string
  /** The requests of this collector, as the API server saw them. */
  readonly requests: () => MatrixServer['requests']
}

/** One case, set up in `dir`. */
export interface CaseSetup {
  readonly server: MatrixServer
  readonly kubeconfig: string
  readonly proxy?: ConnectProxy
  /** Environment for kubectl and the collector (the exec plugin's state file). */
  readonly env?: Record<string, string>
  /** What more to check once a collector is ready (rotation, refresh, proxy use); throws when it does not hold. */
  readonly check?: (c: Connected) => Promise<void>
  close(): Promise<void>
}

export interface MatrixCase {
  readonly name: string
  /** `connects`, or the reason kubectl refuses for (docs/kube-api.md "Transport failures"). */
  readonly kubectl: 'connects' | TransportReason
  /**
   * What carries the collector's requests, on Node and Deno alike: HTTP/2 (node:http2; the matrix
   * server offers h2 by ALPN, as a kube-apiserver does), or HTTP/1.1 over node:https because the
   * kubeconfig has a proxy-url. Default h2.
   */
  readonly transport?: Transport
  setUp(dir: string, pki: SharedPki): Promise<CaseSetup>
}

export type Transport = 'h2' | 'node:https (proxy-url)'

export const b64 = (s: string): string => Buffer.from(s).toString('base64')

/** A kubeconfig (JSON is YAML) with one cluster, one user and one context. */
export function writeKubeconfig(dir: string, cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  const file = join(dir, 'kubeconfig')
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'matrix', cluster }],
      users: [{ name: 'matrix-user', user }],
      contexts: [{ name: 'matrix', context: { cluster: 'matrix', user: 'matrix-user' } }],
      'current-context': 'matrix',
    }),
  )
  return file
}

export function writeFile(dir: string, name: string, text: string): string {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

export const TOKEN = 'matrix-token-0123456789'
export const tokenAuthn: Authn = { type: 'token', accepts: (t) => t === TOKEN }
export const certAuthn: Authn = { type: 'cert', cn: 'collector' }

/** A case whose server and kubeconfig are plain variations of the shared PKI. */
export function simple(
  name: string,
  kubectl: MatrixCase['kubectl'],
  shape: (dir: string, pki: SharedPki) => Promise<{ server: Partial<MatrixServerOptions> & Pick<MatrixServerOptions, 'certPem' | 'keyPem'>; cluster: (url: string) => Record<string, unknown>; user?: Record<string, unknown> }>,
): MatrixCase {
  return {
    name,
    kubectl,
    async setUp(dir, pki) {
      const s = await shape(dir, pki)
      const server = await startMatrixServer({ host: '127.0.0.1', authn: tokenAuthn, ...s.server })
      return { server, kubeconfig: writeKubeconfig(dir, s.cluster(server.url), s.user ?? { token: TOKEN }), close: () => server.close() }
    },
  }
}

export const caData = (pki: SharedPki) => ({ 'certificate-authority-data': b64(pki.ca.certPem) })
export const byIp = (url: string) => ({ server: url })

/** Fails with `what` unless `ok`. */
export function must(ok: boolean, what: string): void {
  if (!ok) throw new Error(what)
}

/** Waits until `ok` holds (harness/wait.ts). */
export async function waitUntil(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  await waitFor(what, () => (ok() ? true : undefined), { timeoutMs })
}
