// Consistent list snapshots behind continue tokens; a token outlives its snapshot for continueTtlMs at most (then 410 Expired).
import { Buffer } from 'node:buffer'
import type { Entry } from './entry.ts'

/** The objects of one list scope at one resourceVersion, in key order. */
export interface Snapshot {
  readonly rv: number
  readonly entries: readonly Entry[]
  readonly expiresAt: number
}

/** Decoded continue token (the real API server's shape: base64url JSON). */
export interface ContinueToken {
  readonly rv: number
  /** Resume at the first key ≥ start (`<last key>\u0000`). */
  readonly start: string
}

export class SnapshotCache {
  readonly #map = new Map<string, Snapshot>()

  constructor(private readonly ttlMs: number, private readonly now: () => number = Date.now) {}

  /** Keeps the snapshot of (resource, namespace scope, rv) until its TTL. */
  put(plural: string, namespace: string | undefined, rv: number, entries: readonly Entry[]): Snapshot {
    this.#prune()
    const key = `${plural}|${namespace ?? ''}|${rv}`
    const existing = this.#map.get(key)
    if (existing) return existing
    const snap = { rv, entries, expiresAt: this.now() + this.ttlMs }
    this.#map.set(key, snap)
    return snap
  }

  /** The snapshot for a token, or undefined when it expired or never existed here (→ 410). */
  get(plural: string, namespace: string | undefined, rv: number): Snapshot | undefined {
    const snap = this.#map.get(`${plural}|${namespace ?? ''}|${rv}`)
    if (!snap) return undefined
    if (snap.expiresAt <= this.now()) {
      this.#map.delete(`${plural}|${namespace ?? ''}|${rv}`)
      return undefined
    }
    return snap
  }

  clear(): void {
    this.#map.clear()
  }

  #prune(): void {
    const now = this.now()
    for (const [k, s] of this.#map) if (s.expiresAt <= now) this.#map.delete(k)
  }
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.rv, start: token.start })).toString('base64url')
}

/** Undefined when the token is not one of ours. */
export function decodeContinue(text: string): ContinueToken | undefined {
  try {
    const raw = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
    if (raw?.v !== 'meta.k8s.io/v1' || typeof raw.rv !== 'number' || typeof raw.start !== 'string') return undefined
    return { rv: raw.rv, start: raw.start }
  } catch {
    return undefined
  }
}
