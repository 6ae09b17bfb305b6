// The audit log reader on lines of the real kube-apiserver v1.37.2 (fixtures/audit.jsonl: the
// bench's policy, the collector's user only, ours and the Rust collector syncing and watching in
// the real section at 10k pods; the user, sourceIPs and annotations fields dropped for size).
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { auditPolicy, countByShape, countByVerb, createAuditReader, parseAuditLines } from './audit.ts'

const lines = readFileSync(join(import.meta.dirname, 'fixtures', 'audit.jsonl'), 'utf8').split('\n').filter(Boolean)

describe('parseAuditLines', () => {
  it('counts each request once: a watch when it starts answering, anything else when complete', () => {
    const events = lines.map((l) => JSON.parse(l) as { auditID: string; stage: string; verb: string })
    const ids = new Set(events.map((e) => e.auditID))
    const requests = parseAuditLines(lines)
    expect(requests).toHaveLength(ids.size)
    // The fixture holds watches that started and ended (two events each) and lists (one event).
    const watchIds = new Set(events.filter((e) => e.verb === 'watch').map((e) => e.auditID))
    expect(events.filter((e) => e.verb === 'watch').length).toBeGreaterThan(watchIds.size)
    expect(requests.filter((r) => r.verb === 'WATCH')).toHaveLength(watchIds.size)
  })

  it('does not count a watch again when it ends in a later window', () => {
    const seen = new Set<string>()
    const watchEnd = (l: string) => {
      const e = JSON.parse(l) as { verb: string; stage: string }
      return e.verb === 'watch' && e.stage === 'ResponseComplete'
    }
    expect(lines.some(watchEnd)).toBe(true)
    const first = parseAuditLines(lines.filter((l) => !watchEnd(l)), seen)
    const ended = parseAuditLines(lines.filter(watchEnd), seen)
    expect(ended).toEqual([])
    expect(first.length).toBe(parseAuditLines(lines).length)
  })

  it('names verb, resource, user agent and code as the server logged them', () => {
    const requests = parseAuditLines(lines)
    expect(new Set(requests.map((r) => r.verb))).toEqual(new Set(['LIST', 'WATCH']))
    expect(new Set(requests.map((r) => r.resource))).toEqual(new Set(['pods', 'replicasets', 'jobs']))
    expect(requests.every((r) => r.code === 200)).toBe(true)
    // Ours says k8s-collector; the Rust collector (kube-rs) sends no User-Agent header.
    expect(new Set(requests.map((r) => r.userAgent))).toEqual(new Set(['k8s-collector', '']))
    expect(requests.every((r) => Number.isFinite(r.at))).toBe(true)
  })

  it('skips RequestReceived and blank lines', () => {
    const received = JSON.stringify({ ...JSON.parse(lines[0]!), auditID: 'other', stage: 'RequestReceived' })
    expect(parseAuditLines([received, '', '  '])).toEqual([])
  })
})

describe('counting', () => {
  const r = (verb: string, resource: string, uri: string) => ({ userAgent: 'x', verb, resource, code: 200, uri, at: 0 })

  it('by verb and resource', () => {
    expect(countByVerb([r('LIST', 'pods', '/api/v1/pods'), r('LIST', 'pods', '/api/v1/pods'), r('WATCH', 'jobs', '/apis/batch/v1/jobs')])).toEqual({ 'LIST pods': 2, 'WATCH jobs': 1 })
  })

  it.each([
    ['/api/v1/pods?limit=500', 'LIST /api/v1/pods?limit=500'],
    ['/api/v1/pods?limit=500&continue=abc', 'LIST /api/v1/pods?continue&limit=500'],
    ['/api/v1/pods?watch=true&resourceVersion=123&timeoutSeconds=17&allowWatchBookmarks=true', 'LIST /api/v1/pods?allowWatchBookmarks=true&resourceVersion&timeoutSeconds&watch=true'],
    ['/api/v1/pods', 'LIST /api/v1/pods'],
  ])('by shape: %s', (uri, shape) => {
    expect(countByShape([r('LIST', 'pods', uri)])).toEqual({ [shape]: 1 })
  })

  it('shapes of the real log: ours pages its lists, the Rust collector too', () => {
    const shapes = Object.keys(countByShape(parseAuditLines(lines)))
    expect(shapes.some((s) => s.startsWith('WATCH /api/v1/pods?'))).toBe(true)
    expect(shapes.some((s) => s.startsWith('LIST /apis/apps/v1/replicasets?'))).toBe(true)
  })
})

describe('createAuditReader', () => {
  let dir = ''
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('reads whole lines only, each once, as the file grows', () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-test-'))
    const file = join(dir, 'audit.log')
    const reader = createAuditReader(file)
    expect(reader.read()).toEqual([]) // no file yet
    const half = Math.floor(lines[1]!.length / 2)
    writeFileSync(file, `${lines[0]}\n${lines[1]!.slice(0, half)}`)
    const first = reader.read()
    appendFileSync(file, `${lines[1]!.slice(half)}\n${lines.slice(2).join('\n')}\n`)
    const rest = reader.read()
    expect([...first, ...rest]).toEqual(parseAuditLines(lines))
    expect(reader.read()).toEqual([])
  })

  it('skipToEnd forgets what is there but remembers its watches', () => {
    dir = mkdtempSync(join(tmpdir(), 'audit-test-'))
    const file = join(dir, 'audit.log')
    const reader = createAuditReader(file)
    writeFileSync(file, lines.join('\n') + '\n')
    reader.skipToEnd()
    appendFileSync(file, lines.join('\n') + '\n')
    expect(reader.read()).toEqual([])
  })
})

it('the policy logs the collector user at Metadata level and nothing else', () => {
  const policy = JSON.parse(auditPolicy('system:serviceaccount:a:b')) as { rules: Array<{ level: string; users?: string[] }> }
  expect(policy.rules).toEqual([{ level: 'Metadata', users: ['system:serviceaccount:a:b'] }, { level: 'None' }])
})
