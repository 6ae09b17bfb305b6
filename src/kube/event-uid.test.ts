// The uid a held line is keyed by (fair-order.ts), read without converting the object.
import { describe, expect, it } from 'vitest'
import { podObject } from '../../e2e/harness/fake-apiserver.ts'
import { EventUidReader } from './event-uid.ts'

describe('EventUidReader', () => {
  const reader = new EventUidReader()
  const uid = (text: string) => {
    const b = new TextEncoder().encode(text)
    return reader.read(b, 0, b.length)
  }
  it('reads object.metadata.uid of an event without converting the object, and nothing else', () => {
    const p = JSON.stringify(podObject({ name: 'a', uid: 'u-1', rv: 1, images: ['i'] }))
    expect(uid(`{"type":"ADDED","object":${p}}`)).toBe('u-1')
    expect(uid(`{"type":"DELETED","object":{"kind":"Pod","metadata":{"name":"a","u\\u0069d":"u-2"}}}`)).toBe('u-2')
    expect(uid(`{"type":"MODIFIED","object":{"metadata":{"uid":"u-3"},"spec":[[[[`)).toBe('u-3') // the rest is not read
    expect(uid(`{"type":"BOOKMARK","object":${p}}`)).toBeUndefined()
    expect(uid(`{"object":${p},"type":"ADDED"}`)).toBeUndefined() // type after object: converted at once instead
    expect(uid(`{"type":"ADDED","object":{"metadata":{"name":"no-uid"}}}`)).toBeUndefined()
    expect(uid(`{"type":"ADDED","object":{"metadata":{"uid":7}}}`)).toBeUndefined()
    expect(uid(`{"type":"ADDED","object":{"metadata":{"name":"a",,"uid":"u"}}}`)).toBeUndefined() // not JSON up to the uid
    expect(uid(`{"type":"ADDED","object":[]}`)).toBeUndefined()
  })
})
