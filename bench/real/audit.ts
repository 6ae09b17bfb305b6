// kube-apiserver's audit log (JSON lines, audit.k8s.io/v1 Events) read by user agent: which
// requests each collector made, by verb and resource. The API server's metrics have no user-agent
// label (v1.37: apiserver_request_total is by verb/resource/code only), its audit log does.
import { closeSync, openSync, readSync, statSync } from 'node:fs'

/** The audit policy of the bench: metadata of every request of `user`, nothing else. */
export function auditPolicy(user: string): string {
  return JSON.stringify({
    apiVersion: 'audit.k8s.io/v1',
    kind: 'Policy',
    omitStages: ['RequestReceived'],
    rules: [{ level: 'Metadata', users: [user] }, { level: 'None' }],
  }, null, 2) + '\n'
}

/** One request as the audit log names it (counted once, at its first stage logged). */
export interface AuditRequest {
  readonly userAgent: string
  /** Upper-case, as apiserver_request_total spells it: `LIST`, `WATCH`, `GET`. */
  readonly verb: string
  readonly resource: string
  readonly code: number
  readonly uri: string
  /** The stage's timestamp, ms since the epoch. */
  readonly at: number
}

interface AuditEvent {
  auditID?: string
  stage?: string
  verb?: string
  userAgent?: string
  requestURI?: string
  objectRef?: { resource?: string }
  responseStatus?: { code?: number }
  stageTimestamp?: string
}

/**
 * The requests of `lines` (audit log lines), each once: a watch at `ResponseStarted` (it may last
 * minutes), any other request at `ResponseComplete` (or `Panic`). `seen` carries the audit ids
 * across calls, so a watch that started in an earlier window is not counted again when it ends.
 */
export function parseAuditLines(lines: readonly string[], seen: Set<string> = new Set()): AuditRequest[] {
  const out: AuditRequest[] = []
  for (const line of lines) {
    if (!line.trim()) continue
    const e = JSON.parse(line) as AuditEvent
    if (!e.auditID || !e.verb || seen.has(e.auditID)) continue
    if (e.stage !== 'ResponseStarted' && e.stage !== 'ResponseComplete' && e.stage !== 'Panic') continue
    seen.add(e.auditID)
    out.push({
      userAgent: e.userAgent ?? '',
      verb: e.verb.toUpperCase(),
      resource: e.objectRef?.resource ?? '',
      code: e.responseStatus?.code ?? 0,
      uri: e.requestURI ?? '',
      at: e.stageTimestamp ? Date.parse(e.stageTimestamp) : NaN,
    })
  }
  return out
}

/** Requests counted by `VERB resource` (e.g. `WATCH pods`). */
export function countByVerb(requests: readonly AuditRequest[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const r of requests) {
    const key = `${r.verb} ${r.resource}`.trim()
    out[key] = (out[key] ?? 0) + 1
  }
  return out
}

/** Query keys whose values tell requests apart; the others (resourceVersion, continue, timeoutSeconds) vary per request. */
const SHAPE_VALUES = new Set(['limit', 'watch', 'sendInitialEvents', 'allowWatchBookmarks', 'resourceVersionMatch', 'labelSelector', 'fieldSelector'])

/**
 * Requests counted by shape: `VERB path?key&key=value` with the query keys sorted and only the
 * values of {@link SHAPE_VALUES} kept, e.g. `WATCH /api/v1/pods?allowWatchBookmarks=true&resourceVersion&timeoutSeconds&watch=true`.
 */
export function countByShape(requests: readonly AuditRequest[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const r of requests) {
    const url = new URL(r.uri, 'http://x')
    const keys = [...new Set(url.searchParams.keys())].sort()
    const query = keys.map((k) => (SHAPE_VALUES.has(k) ? `${k}=${url.searchParams.get(k)}` : k)).join('&')
    const key = `${r.verb} ${url.pathname}${query ? `?${query}` : ''}`
    out[key] = (out[key] ?? 0) + 1
  }
  return out
}

/** Reads an audit log file from a byte offset on: whole lines only; the offset to read from next time. */
export function createAuditReader(file: string): { read(): AuditRequest[]; skipToEnd(): void } {
  let offset = 0
  let partial = ''
  const seen = new Set<string>()
  const readNew = (): string[] => {
    let size = 0
    try {
      size = statSync(file).size
    } catch {
      return []
    }
    if (size <= offset) return []
    const buf = Buffer.alloc(size - offset)
    const fd = openSync(file, 'r')
    try {
      readSync(fd, buf, 0, buf.length, offset)
    } finally {
      closeSync(fd)
    }
    offset = size
    const text = partial + buf.toString('utf8')
    const cut = text.lastIndexOf('\n')
    partial = text.slice(cut + 1)
    return cut < 0 ? [] : text.slice(0, cut).split('\n')
  }
  return {
    read: () => parseAuditLines(readNew(), seen),
    skipToEnd: () => void parseAuditLines(readNew(), seen),
  }
}
