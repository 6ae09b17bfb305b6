import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { packContainerId, unpackContainerId } from './container-id.ts'

const HEX64 = '0123456789abcdef'.repeat(4)

describe('container ids kept compactly', () => {
  it.each([
    ['containerd', `containerd://${HEX64}`, 33],
    ['docker', `docker://${HEX64}`, 33],
    ['cri-o', `cri-o://${HEX64}`, 33],
    ['upper-case hex: kept as is', `containerd://${HEX64.toUpperCase()}`, 77],
    ['63 digits: kept as is', `containerd://${HEX64.slice(1)}`, 76],
    ['65 digits: kept as is', `containerd://${HEX64}0`, 78],
    ['a non-hex digit: kept as is', `containerd://${HEX64.slice(0, 63)}g`, 77],
    ['another runtime: kept as is', `podman://${HEX64}`, 73],
    ['short: kept as is', 'containerd://abc', 16],
    ['empty', '', 0],
    ['starts like a packed id: escaped', `\u0001${'x'.repeat(32)}`, 34],
    ['starts with the escape: escaped', '\u0000a', 3],
    ['non-Latin-1', `containerd://${'ü'.repeat(64)}`, 77],
  ])('%s', (_name, id, length) => {
    const packed = packContainerId(id)
    expect(packed.length).toBe(length)
    expect(unpackContainerId(packed)).toBe(id)
    if (length === 33) expect([...packed].every((c) => c.charCodeAt(0) <= 0xff)).toBe(true)
  })

  it('gives every id back, and two ids never share a packed form', () => {
    const hexId = fc.tuple(fc.constantFrom('containerd://', 'docker://', 'cri-o://', 'x://', ''), fc.stringMatching(/^[0-9a-fA-F]{60,68}$/)).map(([p, h]) => p + h)
    const id = fc.oneof(hexId, fc.string(), fc.string({ unit: 'binary' }))
    fc.assert(
      fc.property(id, id, (a, b) => {
        expect(unpackContainerId(packContainerId(a))).toBe(a)
        expect(packContainerId(a) === packContainerId(b)).toBe(a === b)
      }),
      { numRuns: 2000 },
    )
  })
})
