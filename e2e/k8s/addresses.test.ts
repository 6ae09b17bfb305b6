import { describe, expect, it } from 'vitest'
import { MAX_NODES, nodeIp, nodePodCidr } from './control-plane.ts'

const octets = (ip: string) => ip.split('.').map(Number)

describe("fake nodes' addresses", () => {
  it('gives every node its own /24 inside 10.244.0.0/14, past the 255th node', () => {
    const cidrs = Array.from({ length: MAX_NODES }, (_, i) => nodePodCidr(i))
    expect(new Set(cidrs).size).toBe(MAX_NODES)
    expect(cidrs.slice(0, 2)).toEqual(['10.244.1.0/24', '10.244.2.0/24'])
    expect(nodePodCidr(255)).toBe('10.245.0.0/24')
    for (const c of cidrs) {
      const [a, b, c3, d] = octets(c.replace('/24', ''))
      expect([a, d]).toEqual([10, 0])
      expect(b).toBeGreaterThanOrEqual(244)
      expect(b).toBeLessThanOrEqual(247)
      expect(c3).toBeLessThanOrEqual(255)
    }
    expect(() => nodePodCidr(MAX_NODES)).toThrow(/outside/)
  })

  it('gives every node its own InternalIP in 172.18.0.0/16', () => {
    const ips = Array.from({ length: MAX_NODES }, (_, i) => nodeIp(i))
    expect(new Set(ips).size).toBe(MAX_NODES)
    expect(nodeIp(0)).toBe('172.18.0.2')
    expect(ips.every((ip) => octets(ip).every((o) => o >= 0 && o <= 255) && ip.startsWith('172.18.'))).toBe(true)
  })
})
