// Test support for the byte-level JSON readers (src/kube/json-cursor.ts, pod-layout.ts): JSON texts
// generated as syntax trees (duplicate keys and member order kept, which JSON.stringify cannot),
// serialized with random whitespace and escaping, and random corruptions of their bytes.
import fc from 'fast-check'
import { concatBytes } from '../../src/bytes.ts'

const enc = new TextEncoder()

/** The UTF-8 bytes of a string. */
export const bytesOf = (s: string): Uint8Array => enc.encode(s)

/** Bytes from text parts (UTF-8) and raw byte lists, in order. */
export const bin = (...parts: (string | number[])[]): Uint8Array => concatBytes(parts.map((p) => (typeof p === 'string' ? enc.encode(p) : Uint8Array.from(p))))

/** A JSON syntax tree. */
export type Node = { o: [string, Node][] } | { a: Node[] } | { s: string } | { n: string } | { l: 'true' | 'false' | 'null' }

/** Short strings rich in what needs escaping: quotes, backslashes, controls, lone surrogates, astral characters. */
export const unicodeString = fc.string({
  unit: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a', 'b', '1', '.', ':', '-', ' ') },
    { weight: 2, arbitrary: fc.constantFrom('"', '\\', '/', '\n', '\t', '\u0000', '\u001f', '\u007f', '\u00e9', '\u2028', '\ufeff', '\uffff', '\ud800', '\udfff') },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  ),
  maxLength: 12,
})
const numberText = fc.oneof(fc.constantFrom('0', '-0', '1e5', '-2.5E-3', '123456789012345678901234567890', '0.000'), fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)))
const leaf: fc.Arbitrary<Node> = fc.oneof(unicodeString.map((s) => ({ s })), numberText.map((n) => ({ n })), fc.constantFrom<'true' | 'false' | 'null'>('true', 'false', 'null').map((l) => ({ l })))

/** Any JSON value, small and nested. */
export const junk: fc.Arbitrary<Node> = fc.letrec<{ v: Node }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('v'), { maxLength: 3 }).map((a) => ({ a })),
    fc.array(fc.tuple(unicodeString, tie('v')), { maxLength: 3 }).map((o) => ({ o })),
  ),
})).v

/** A JSON string of `a`'s strings. */
export const strNode = (a: fc.Arbitrary<string>): fc.Arbitrary<Node> => a.map((s) => ({ s }))

/** A JSON array of up to 4 of `a`'s values, some of them other values. */
export const arrayOfNodes = (a: fc.Arbitrary<Node>): fc.Arbitrary<Node> => fc.array(fc.oneof({ weight: 4, arbitrary: a }, { weight: 1, arbitrary: junk }), { maxLength: 4 }).map((x) => ({ a: x }))

/** A uid: any short string, often one of a few that repeat (and ''). */
export const idString = fc.oneof(unicodeString, fc.constantFrom('u-1', 'u-2', ''))

/** An object of chosen fields (each maybe mistyped, maybe duplicated) plus unknown fields, in random order. */
export function objectOf(fields: Record<string, fc.Arbitrary<Node>>): fc.Arbitrary<Node> {
  const entries = Object.entries(fields).map(([k, v]) => fc.array(fc.tuple(fc.constant(k), fc.oneof({ weight: 5, arbitrary: v }, { weight: 1, arbitrary: junk })), { maxLength: 2 }))
  return fc
    .tuple(fc.tuple(...entries), fc.array(fc.tuple(unicodeString, junk), { maxLength: 2 }), fc.integer())
    .map(([known, extra, seed]) => {
      const members = [...known.flat(), ...extra]
      // Fisher–Yates with the seed, so the key order is random and shrinkable.
      let x = seed | 1
      for (let i = members.length - 1; i > 0; i--) {
        x = (x * 1103515245 + 12345) | 0
        const j = Math.abs(x) % (i + 1)
        ;[members[i], members[j]] = [members[j], members[i]]
      }
      return { o: members }
    })
}

/** Serializes with random whitespace and random escaping (raw, short escapes, \uXXXX). */
export function serialize(node: Node, seed: number): string {
  let x = seed | 1
  const rnd = (n: number): number => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % n
  }
  const ws = (): string => (rnd(4) === 0 ? [' ', '\n', '\t', '\r', '  \n'][rnd(5)] : '')
  const quote = (s: string): string => {
    let out = '"'
    for (const ch of s) {
      const c = ch.charCodeAt(0)
      const mustEscape = ch === '"' || ch === '\\' || c < 0x20 || (c >= 0xd800 && c <= 0xdfff && ch.length === 1)
      const r = rnd(8)
      if (!mustEscape && r > 1) out += ch
      else if (ch === '"') out += '\\"'
      else if (ch === '\\') out += '\\\\'
      else if (ch === '\n' && r === 0) out += '\\n'
      else if (ch === '/' && r === 0) out += '\\/'
      else for (let k = 0; k < ch.length; k++) out += '\\u' + ch.charCodeAt(k).toString(16).padStart(4, '0')[rnd(2) ? 'toUpperCase' : 'toLowerCase']()
    }
    return out + '"'
  }
  const go = (n: Node): string => {
    if ('s' in n) return quote(n.s)
    if ('n' in n) return n.n
    if ('l' in n) return n.l
    if ('a' in n) return '[' + ws() + n.a.map((v) => ws() + go(v) + ws()).join(',') + ws() + ']'
    return '{' + ws() + n.o.map(([k, v]) => ws() + quote(k) + ws() + ':' + ws() + go(v) + ws()).join(',') + ws() + '}'
  }
  return ws() + go(node) + ws()
}

/** The bytes of `text` after 1–3 random byte flips, cuts, insertions or deletions. */
export function corrupted(text: fc.Arbitrary<string>): fc.Arbitrary<Uint8Array> {
  return fc.tuple(text, fc.array(fc.tuple(fc.nat(), fc.nat(255), fc.constantFrom('flip', 'cut', 'insert', 'delete')), { minLength: 1, maxLength: 3 })).map(([t, edits]) => {
    let b = bytesOf(t)
    for (const [pos, byte, op] of edits) {
      const at = b.length === 0 ? 0 : pos % (b.length + (op === 'insert' ? 1 : 0))
      if (op === 'flip' && b.length > 0) b[at] = byte
      else if (op === 'cut') b = b.slice(0, at)
      else if (op === 'insert') b = bin(Array.from(b.subarray(0, at)), [byte], Array.from(b.subarray(at)))
      else if (op === 'delete' && b.length > 0) b = bin(Array.from(b.subarray(0, at)), Array.from(b.subarray(at + 1)))
    }
    return b
  })
}

/** Texts of JSON punctuation and literal letters: mostly invalid, often nearly valid. */
export const punctuation = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '1', '-', '.', 'e', 't', 'r', 'u', 'n', 'l', ' ', '\\', 'a', '0'), maxLength: 20 })

/** Valid and invalid texts at the edges of the grammar (the verdict is JSON.parse's), deep nesting included. */
export const validityCases: readonly string[] = [
  '', ' ', '{', '}', '{"metadata":{"uid":"u"}} x', '{"metadata":{"uid":"u"}}}', '{"a":1,}', '[1,]', '{,}', '{"a" 1}', '{"a":}', '{a:1}', "{'a':1}",
  '{"a":01}', '{"a":-}', '{"a":1.}', '{"a":.5}', '{"a":1e}', '{"a":1e+}', '{"a":+1}', '{"a":-01}', '{"a":0x1}', '{"a":NaN}', '{"a":Infinity}',
  '{"a":tru}', '{"a":nul}', '{"a":falsey}', '{"a":True}', '{"a":[1 2]}', '{"a":{"b":1 "c":2}}', '{"a":"\t"}', '{"a":"\u0001"}', '{"a":"x\ny"}',
  '{"a":"\\x"}', '{"a":"\\u12G4"}', '{"a":"\\u12"}', '{"a":"\\', '{"a":"unterminated', '{"a\u0000":1}', '{"a":1}\u00a0', '\u00a0{}', '{"a":1}\ufeff',
  '{"metadata":{"uid":"\\q"}}', '{"metadata":{"uid":"u"},"spec":{"hostNetwork":tru}}', '{"metadata":{"uid":"u","ownerReferences":[{"controller":true},]}}',
  '[' + '[{"a":'.repeat(5000) + '1' + '}]'.repeat(5000) + ']', '[' + '['.repeat(20000) + ']'.repeat(19999),
  '{"a":-0,"b":0.0e-0,"c":1E+2,"d":-12.5E3,"e":[],"f":{},"g":"\\/","h":[[[]]]}', '{"metadata":{"uid":"u"}}\n\r\t ',
]

/**
 * The `metadata` fields the collector reads of a pod, a ReplicaSet or a Job (uid, name, namespace,
 * resourceVersion, ownerReferences with `controller` true, false or mistyped), for `objectOf`.
 */
export const metadataFields: Record<string, fc.Arbitrary<Node>> = {
  uid: strNode(idString),
  name: strNode(unicodeString),
  namespace: strNode(unicodeString),
  resourceVersion: strNode(unicodeString),
  ownerReferences: arrayOfNodes(
    objectOf({ controller: fc.constantFrom<Node>({ l: 'true' }, { l: 'false' }, { s: 'true' }), kind: strNode(unicodeString), uid: strNode(idString), name: strNode(unicodeString) }),
  ),
}
