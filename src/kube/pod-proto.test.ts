// The protobuf layout against the JSON scanner on bytes kube-apiserver v1.37.2 sent (testdata/,
// captured 2026-11-28 from the e2e control plane: the same pods as protobuf and as JSON), and on
// bytes cut or corrupted: only ProtoDecodeError, never another failure.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createModelContext } from '../model/context.ts'
import type { PodMeta } from '../model/types.ts'
import { createPodScanner } from './pod-scanner.ts'
import { ProtoLayout, type ProtoObjects } from './pod-proto.ts'
import { ProtoDecodeError } from './proto-wire.ts'

const data = (name: string): Uint8Array => new Uint8Array(readFileSync(join(import.meta.dirname, 'testdata', name)))

/** The frames of a protobuf watch body: `[start, end)` after each 4-byte big-endian length. */
function frames(b: Uint8Array): [number, number][] {
  const out: [number, number][] = []
  for (let p = 0; p + 4 <= b.length; ) {
    const n = ((b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3]) >>> 0
    out.push([p + 4, p + 4 + n])
    p += 4 + n
  }
  return out
}

function setup() {
  const model = createModelContext()
  const layout = new ProtoLayout(model)
  const pods: ProtoObjects<PodMeta> = { read: (s, e, listed) => layout.pod(s, e, listed) }
  const json = createPodScanner(model)
  const byUid = (listed: boolean): Map<string, PodMeta> => {
    const page = json.list(data('pods.json'), listed)
    return new Map(page.items!.map((p) => [p.uid, p]))
  }
  return { layout, pods, byUid }
}

describe('ProtoLayout on kube-apiserver v1.37.2 bytes', () => {
  it('reads a streaming list of pods as the JSON scanner reads the same pods', () => {
    const { layout, pods, byUid } = setup()
    const want = byUid(false)
    const b = data('pods-streaming-list.pb')
    const got = frames(b).map(([s, e]) => layout.frame(b, s, e, pods))
    expect(got.map((f) => f.type)).toEqual(['ADDED', 'ADDED', 'ADDED', 'ADDED', 'BOOKMARK'])
    for (const f of got.slice(0, 4)) {
      expect(f.object).toBeDefined()
      const { resourceVersion, ...rest } = f.object as PodMeta & Record<string, unknown>
      const { resourceVersion: _rv, ...wantRest } = want.get(f.object!.uid) as PodMeta & Record<string, unknown>
      expect(rest).toEqual(wantRest)
      expect(resourceVersion).toMatch(/^\d+$/)
      expect(f.resourceVersion).toBe(resourceVersion)
      expect(f.object!.ip).not.toBe(0)
    }
    const end = got[4]
    expect(end.initialEventsEnd).toBe(true)
    expect(end.resourceVersion).toMatch(/^\d+$/)
    expect(end.object).toBeUndefined()
  })

  it('reads a LIST page as the JSON scanner reads its items, with its continue token', () => {
    const { layout, pods, byUid } = setup()
    const want = byUid(true)
    const page = layout.list(data('pods-list-page.pb'), pods, true)
    expect(page.total).toBe(2)
    expect(page.resourceVersion).toMatch(/^\d+$/)
    expect(page.continueToken.length).toBeGreaterThan(10)
    for (const pod of page.items) expect(pod).toEqual(want.get(pod.uid))
    expect(page.items.map((p) => p.name)).toEqual(['bare', 'web-69c6f74b8b-bcvmq'])
  })

  it('reads an error body as the Status it is', () => {
    const { layout } = setup()
    expect(layout.status(data('status-404.pb'))).toEqual({ kind: 'Status', status: 'Failure', message: 'pods "nope" not found', reason: 'NotFound', code: 404 })
    expect(layout.status(new TextEncoder().encode('{"kind":"Status"}'))).toBeUndefined()
  })

  it('reads an ERROR frame as its Status, and the uid of an object frame without converting it', () => {
    const { layout, pods } = setup()
    const status = data('status-404.pb')
    const len = (n: number): number[] => (n < 128 ? [n] : [(n & 0x7f) | 0x80, n >> 7])
    const type = Array.from(new TextEncoder().encode('ERROR'))
    const raw = [0x0a, ...len(status.length), ...status]
    const event = Uint8Array.from([0x0a, type.length, ...type, 0x12, ...len(raw.length), ...raw])
    const f = layout.frame(event, 0, event.length, pods)
    expect(f.type).toBe('ERROR')
    expect(f.status).toMatchObject({ code: 404, reason: 'NotFound' })
    expect(layout.frameUid(event, 0, event.length)).toBeUndefined()
    const b = data('pods-streaming-list.pb')
    const [s, e] = frames(b)[0]
    expect(layout.frameUid(b, s, e)).toBe(layout.frame(b, s, e, pods).object!.uid)
  })

  it('fails only with ProtoDecodeError on a body cut at every byte or with a byte changed', () => {
    const { layout, pods } = setup()
    const b = data('pods-list-page.pb')
    let errors = 0
    for (let n = 0; n < b.length; n++) {
      const variants = [b.subarray(0, n), Uint8Array.from(b, (x, i) => (i === n ? x ^ 0xff : x))]
      for (const v of variants) {
        try {
          layout.list(v, pods, true)
        } catch (err) {
          expect(err).toBeInstanceOf(ProtoDecodeError)
          errors++
        }
      }
    }
    // Most cuts end inside a field; the check is that none escaped as another error.
    expect(errors).toBeGreaterThan(b.length / 2)
  })
})
