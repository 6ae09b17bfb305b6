// The uid a held line is keyed by (fair-order.ts), read without converting the object: the uid
// JSON.parse and the pod scanner give, duplicated keys and look-alike nested keys included.
import { describe, expect, it } from 'vitest'
import { podObject } from '../../e2e/harness/fake-apiserver.ts'
import { createModelContext } from '../model/context.ts'
import { EventUidReader } from './event-uid.ts'
import { createPodScanner } from './pod-scanner.ts'

const reader = new EventUidReader()
const enc = new TextEncoder()
const uid = (text: string): string | undefined => {
  const b = enc.encode(text)
  return reader.read(b, 0, b.length)
}

/** What the watch converts: `object.metadata.uid` of JSON.parse's result, for an event line with a string uid. */
function parsedUid(text: string): string | undefined {
  let line: any
  try {
    line = JSON.parse(text)
  } catch {
    return undefined
  }
  const type = line?.type
  const u = line?.object?.metadata?.uid
  return (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') && typeof u === 'string' ? u : undefined
}

/** An ADDED line with `object` as given (JSON text). */
const added = (object: string): string => `{"type":"ADDED","object":${object}}`
const p = JSON.stringify(podObject({ name: 'a', uid: 'u-1', rv: 1, images: ['i'] }))
/** 70 KiB of annotation: a line as large as those that are held. */
const pad = `"annotations":{"pad":"${'x'.repeat(70 * 1024)}"}`

describe('EventUidReader', () => {
  it.each([
    ['an ordinary pod', added(p), 'u-1'],
    ['an escaped key', '{"type":"DELETED","object":{"kind":"Pod","metadata":{"name":"a","u\\u0069d":"u-2"}}}', 'u-2'],
    ['an escaped type', '{"type":"MOD\\u0049FIED","object":{"metadata":{"uid":"u-3"}}}', 'u-3'],
    ['type after object', `{"object":${p},"type":"ADDED"}`, 'u-1'],
    ['a bookmark', `{"type":"BOOKMARK","object":${p}}`, undefined],
    ['type not a string', `{"type":["ADDED"],"object":${p}}`, undefined],
    ['no type', `{"object":${p}}`, undefined],
    ['no uid', added('{"metadata":{"name":"no-uid"}}'), undefined],
    ['a uid that is not a string', added('{"metadata":{"uid":7}}'), undefined],
    ['an empty uid', added('{"metadata":{"uid":""}}'), ''],
    ['metadata not an object', added('{"metadata":["uid","u"]}'), undefined],
    ['object not an object', '{"type":"ADDED","object":[]}', undefined],
    ['the line not an object', '["ADDED"]', undefined],
    ['not JSON before the uid', added('{"metadata":{"name":"a",,"uid":"u"}}'), undefined],
    ['not JSON after the uid', '{"type":"MODIFIED","object":{"metadata":{"uid":"u-3"},"spec":[[[[', undefined],
    ['something after the line', `${added(p)} x`, undefined],
  ])('%s', (_what, text, want) => {
    expect(parsedUid(text)).toBe(want)
    expect(uid(text)).toBe(want)
  })

  // Of duplicated keys JSON.parse (and Go's decoder) keep the last; a duplicate deeper down is another key.
  it.each([
    ['uid twice', added('{"metadata":{"uid":"first","name":"a","uid":"last"}}'), 'last'],
    ['uid twice, the last escaped', added('{"metadata":{"uid":"first","u\\u0069d":"last"}}'), 'last'],
    ['uid twice, the last not a string', added('{"metadata":{"uid":"first","uid":null}}'), undefined],
    ['uid twice, the first not a string', added('{"metadata":{"uid":{"a":1},"uid":"last"}}'), 'last'],
    ['uid twice, far apart', added(`{"metadata":{"uid":"first",${pad},"uid":"last"}}`), 'last'],
    ['metadata twice', added('{"metadata":{"uid":"first"},"spec":{},"metadata":{"name":"a","uid":"last"}}'), 'last'],
    ['metadata twice, the last without uid', added('{"metadata":{"uid":"first"},"metadata":{"name":"a"}}'), undefined],
    ['metadata twice, the last not an object', added('{"metadata":{"uid":"first"},"metadata":null}'), undefined],
    ['metadata twice, the first not an object', added('{"metadata":"x","metadata":{"uid":"last"}}'), 'last'],
    ['metadata twice, far apart', added(`{"metadata":{"uid":"first",${pad}},"metadata":{"uid":"last"}}`), 'last'],
    ['metadata many times (the hostile shape)', added(`{${'"metadata":{"uid":"x","name":"y"},'.repeat(100)}"metadata":{"uid":"last"}}`), 'last'],
    ['object twice', '{"type":"ADDED","object":{"metadata":{"uid":"first"}},"object":{"metadata":{"uid":"last"}}}', 'last'],
    ['object twice, the last without metadata', '{"type":"ADDED","object":{"metadata":{"uid":"first"}},"object":{"kind":"Pod"}}', undefined],
    ['object twice, the last not an object', '{"type":"ADDED","object":{"metadata":{"uid":"first"}},"object":7}', undefined],
    ['object twice, far apart', `{"type":"ADDED","object":{"metadata":{"uid":"first",${pad}}},"object":{"metadata":{"uid":"last"}}}`, 'last'],
    ['type twice, an event last', `{"type":"BOOKMARK","object":${p},"type":"MODIFIED"}`, 'u-1'],
    ['type twice, a bookmark last', `{"type":"ADDED","object":${p},"type":"BOOKMARK"}`, undefined],
    ['uid nested in metadata after the uid', added('{"metadata":{"uid":"pod","ownerReferences":[{"uid":"owner"}],"annotations":{"uid":"ann"}}}'), 'pod'],
    ['metadata nested in the object after metadata', added('{"metadata":{"uid":"pod"},"spec":{"template":{"metadata":{"uid":"template"}}}}'), 'pod'],
    ['object nested in the object after it', added('{"metadata":{"uid":"pod"},"status":{"object":{"metadata":{"uid":"inner"}}}}'), 'pod'],
    ['uid beside metadata, not in it', added('{"metadata":{"uid":"pod"},"uid":"beside"}'), 'pod'],
    ['metadata and uid on the line, not in the object', `{"type":"ADDED","metadata":{"uid":"line"},"uid":"line",${added(p).slice(16)}`, 'u-1'],
    ['nested look-alikes before the uid', added('{"spec":{"metadata":{"uid":"spec"}},"metadata":{"annotations":{"uid":"ann"},"uid":"pod"}}'), 'pod'],
    ['a key inside a string', added('{"metadata":{"uid":"pod","name":"\\",\\"uid\\":\\"fake"},"x":"\\"metadata\\":{\\"uid\\":\\"fake\\"}"}'), 'pod'],
  ])('duplicated keys as JSON.parse reads them: %s', (_what, text, want) => {
    expect(parsedUid(text)).toBe(want)
    expect(uid(text)).toBe(want)
  })

  // The pod scanner converts the held line later: its uid is the one the line was held by.
  it.each([
    ['uid', (t: string) => t.replace('"uid":"uid-a"', '"uid":"uid-decoy","uid":"uid-a"')],
    ['metadata', (t: string) => t.replace('"metadata":', '"metadata":{"uid":"uid-decoy"},"metadata":')],
    ['object', (t: string) => t.replace('"object":', '"object":{"metadata":{"uid":"uid-decoy"}},"object":')],
  ])('a large pod with a duplicated %s key: the uid the scanner converts', (_key, twice) => {
    const text = twice(JSON.stringify({ type: 'MODIFIED', object: podObject({ name: 'a', rv: 2, padding: 70 * 1024 }) }))
    expect(text).toContain('uid-decoy')
    const b = enc.encode(text)
    const scanned = createPodScanner(createModelContext()).watchLine(b, 0, b.length)
    expect([scanned.object?.uid, parsedUid(text), uid(text)]).toStrictEqual(['uid-a', 'uid-a', 'uid-a'])
  })
})
