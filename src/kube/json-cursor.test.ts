// The JSON cursor on its own, against JSON.parse of the TextDecoder-decoded bytes: its verdict on
// valid and invalid texts (tables and fast-check: random values, random corruptions), its error
// messages and offsets, its string and key readers, and two cursors used in turn.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bin, bytesOf, corrupted, junk, objectOf, punctuation, serialize, unicodeString, validityCases, type Node } from '../../e2e/harness/json-text.ts'
import { JsonCursor, keyTable } from './json-cursor.ts'
import { JsonScanError } from './json-skip.ts'
import { ByteStringCache } from './json-strings.ts'

const cur = new JsonCursor()

/** The cursor's verdict on a whole text: the error it throws, or undefined. */
function verdict(b: Uint8Array): unknown {
  try {
    cur.expectEnd(cur.skipValue(cur.openText(b)))
    return undefined
  } catch (err) {
    return err
  } finally {
    cur.close()
  }
}

/** Asserts the cursor accepts `b` exactly when JSON.parse accepts its decoded text. */
function agree(b: Uint8Array): void {
  const text = new TextDecoder().decode(b)
  let parsed = true
  try {
    JSON.parse(text)
  } catch {
    parsed = false
  }
  const err = verdict(b)
  if (parsed) expect(err, `rejected valid JSON ${JSON.stringify(text.slice(0, 120))}`).toBeUndefined()
  else expect(err, `accepted invalid JSON ${JSON.stringify(text.slice(0, 120))}`).toBeInstanceOf(JsonScanError)
}

describe('JsonCursor: validation like JSON.parse', () => {
  it.each(validityCases.map((t) => [t.length > 60 ? `${t.slice(0, 60)}… (${t.length} chars)` : t, t]))('%j', (_name, text) => agree(bytesOf(text)))

  it.each([
    ['literals and numbers', ['true', 'false', 'null', '0', '-0', '1.5e-300', '1E400', '-12.0', '00', '1.e1', '--1', '1e', '1e1.5', 'nulll', 'tRue', '-', '.1', '1_0']],
    ['strings', ['""', '"\\u0000"', '"\\uD800\\uDC00"', '"\\udfff"', '"\\U0041"', '"\\u004"', '"a\\"b"', '"\\\\"', '"\\/"', '"\\a"', '"\u007f"', '"\u2028"', '"']],
    ['containers', ['[]', '[ ]', '{}', '{ }', '[[],[{}]]', '{"":""}', '{"a":[]}', '[,1]', '[1,,2]', '{"a":1,,"b":2}', '{"a"}', '{1:2}', '[}', '{]', '[1}', '{"a":1]']],
    ['whitespace', [' \t\n\r1 ', '\f1', '\v1', '1\u0085', '\u3000 1']],
  ])('%s', (_kind, texts) => {
    for (const t of texts) agree(bytesOf(t))
  })

  it('bytes ≥ 0x80: inside strings any, outside none; a BOM only at the start', () => {
    for (const bad of [[0x80], [0xff], [0xc3, 0xa9], [0xf0, 0x9f, 0x98, 0x80], [0xed, 0xa0, 0x80]]) {
      agree(bin('"', bad, '"'))
      agree(bin('[1', bad, ']'))
      agree(bin(bad, '1'))
    }
    agree(bin([0xef, 0xbb, 0xbf], '{}'))
    agree(bin([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], '{}'))
    agree(bin(' ', [0xef, 0xbb, 0xbf], '1'))
  })

  it('random JSON values and random corruptions (fast-check)', () => {
    const value = fc.tuple(junk, fc.integer()).map(([n, seed]) => serialize(n, seed))
    fc.assert(
      fc.property(value, (t) => {
        expect(verdict(bytesOf(t))).toBeUndefined()
      }),
      { numRuns: 1000 },
    )
    fc.assert(fc.property(fc.json(), (t) => agree(bytesOf(t))), { numRuns: 500 })
    fc.assert(fc.property(corrupted(value), agree), { numRuns: 2000 })
    fc.assert(fc.property(fc.uint8Array({ maxLength: 40 }), agree), { numRuns: 1000 })
    fc.assert(fc.property(punctuation, (t) => agree(bytesOf(t))), { numRuns: 2000 })
  })
})

describe('JsonCursor: errors', () => {
  it.each([
    ['{"a":1,}', "Unexpected token '}' in JSON at byte 7"],
    ['[1 2]', "Unexpected token '2' in JSON at byte 3"],
    ['{"a":"\t"}', 'Unexpected byte 0x09 in JSON at byte 6'],
    ['[1, "é"', 'Unexpected end of JSON input'],
    ['[1] é', 'Unexpected byte 0xc3 in JSON at byte 4'],
    ['', 'Unexpected end of JSON input'],
    ['"\\u12x4"', "Unexpected token 'x' in JSON at byte 5"],
  ])('%j: %s', (text, message) => {
    expect(verdict(bytesOf(text))).toStrictEqual(new JsonScanError(message))
  })

  it('offsets count from the start of the text: after a BOM, from the start of a line inside a buffer', () => {
    expect((verdict(bin([0xef, 0xbb, 0xbf], '[1,]')) as Error).message).toBe("Unexpected token ']' in JSON at byte 3")
    const b = bytesOf('xxxx[1,]yy')
    expect(() => cur.expectEnd(cur.skipValue(cur.open(b, 4, 8)))).toThrow("Unexpected token ']' in JSON at byte 3")
    // The text ends at `end`: what follows in the buffer is not read.
    expect(() => cur.skipValue(cur.open(bytesOf('[1,2]'), 0, 4))).toThrow('Unexpected end of JSON input')
    cur.close()
  })
})

describe('JsonCursor: readers', () => {
  it('readString and readCached give what JSON.parse gives for any string, however escaped (fast-check)', () => {
    const cache = new ByteStringCache({ intern: (s) => s })
    const strings = fc.tuple(fc.oneof(unicodeString, fc.string({ unit: 'binary', maxLength: 40 })), fc.integer())
    fc.assert(
      fc.property(strings, ([s, seed]) => {
        const text = serialize({ s }, seed)
        const b = bytesOf(text)
        const want = JSON.parse(text) as string
        expect(cur.readString(cur.open(b, 0, b.length))).toBe(want)
        expect(cur.ws(cur.pos)).toBe(b.length)
        for (let pass = 0; pass < 2; pass++) expect(cur.readCached(cur.open(b, 0, b.length), cache)).toBe(want)
        cur.close()
      }),
      { numRuns: 2000 },
    )
  })

  it('readKey finds each key of an object, escaped or not, and pos is its value (fast-check)', () => {
    const objects = fc.tuple(objectOf({ a: junk, é: junk, 'k\u{1F600}"\\': junk }), fc.integer())
    fc.assert(
      fc.property(objects, ([node, seed]) => {
        const members = (node as { o: [string, Node][] }).o
        const table = keyTable(...new Set(members.map(([k]) => k)), 'absent')
        const b = bytesOf(serialize(node, seed))
        const found: number[] = []
        const values: unknown[] = []
        for (let k = cur.firstKey(cur.open(b, 0, b.length)); k >= 0; k = cur.nextKey(cur.pos)) {
          found.push(cur.readKey(k, table))
          const end = cur.skipValue(cur.pos)
          values.push(JSON.parse(new TextDecoder().decode(b.subarray(cur.pos, end))))
          cur.pos = end
        }
        cur.expectEnd(cur.pos)
        cur.close()
        expect(found).toStrictEqual(members.map(([k]) => table.names.indexOf(k)))
        expect(values).toStrictEqual(members.map(([, v]) => JSON.parse(serialize(v, 1))))
      }),
      { numRuns: 1000 },
    )
  })

  it('readStr and readTrue read their kind and skip any other value', () => {
    const b = bytesOf('["s", 7, true, {"a":[true]}, "t\\u0072ue", false]')
    const got: unknown[] = []
    for (let e = cur.firstElement(cur.open(b, 0, b.length)), n = 0; e >= 0; e = cur.nextElement(cur.pos), n++) got.push(n % 2 ? cur.readTrue(e) : cur.readStr(e))
    cur.close()
    expect(got).toStrictEqual(['s', false, '', false, 'true', false])
  })
})

describe('JsonCursor: instances', () => {
  it('two cursors read in turn, each keeps its own bytes, position and nesting', () => {
    const a = new JsonCursor()
    const b = new JsonCursor()
    const table = keyTable('x', 'y')
    const ta = bytesOf('{"x":"a1",  "y":[[[{"z":1}]]], "x":"a2"}')
    const tb = bytesOf('[{"y":"b1"},{"x":[1,[2,{"q":[3]}]]}]')
    const seen: string[] = []
    let ka = a.firstKey(a.open(ta, 0, ta.length))
    let eb = b.firstElement(b.open(tb, 0, tb.length))
    while (ka >= 0 || eb >= 0) {
      if (ka >= 0) {
        const key = a.readKey(ka, table)
        if (key === 0) seen.push(a.readStr(a.pos))
        else a.pos = a.skipValue(a.pos)
        ka = a.nextKey(a.pos)
      }
      if (eb >= 0) {
        const kb = b.firstKey(eb)
        if (b.readKey(kb, table) === 1) seen.push(b.readStr(b.pos))
        else b.pos = b.skipValue(b.pos)
        expect(b.nextKey(b.pos)).toBe(-1)
        eb = b.nextElement(b.pos)
      }
    }
    a.expectEnd(a.pos)
    b.expectEnd(b.pos)
    expect(seen).toStrictEqual(['a1', 'b1', 'a2'])
    a.close()
    expect(a.buf.length).toBe(0)
    expect(b.buf).toBe(tb)
  })
})
