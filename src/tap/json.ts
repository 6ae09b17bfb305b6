// Turning wire values into JSON-friendly ones: bigint, IPv4 u32, wire enums with their names.
import { formatIpv4 } from '../model/convert.ts'
import { ownerKindName as nameOfOwnerKind } from '../model/owner-kinds.ts'

/** A u64 as a JSON number when exact, else as a decimal string. */
export function u64Json(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()
}

/** Wire `ip` (u32, big-endian octets) as dotted text; `ip` 0 means "no IPv4" (docs/protocol.md §3). */
export function ipJson(ip: number): string {
  return formatIpv4(ip)
}

/** Name of an `owner_kind` code (docs/protocol.md §3); unknown codes as `kind-N`. */
export function ownerKindName(code: number): string {
  return nameOfOwnerKind(code) ?? `kind-${code}`
}

const CLOUD_PLATFORMS: Record<number, string> = { 0: 'unknown', 1: 'aws', 2: 'gcp' }

/** Name of a `cloud_platform` code (docs/protocol.md §3). */
export function cloudPlatformName(code: number): string {
  return CLOUD_PLATFORMS[code] ?? `platform-${code}`
}

const HEALTH: Record<number, string> = { 0: 'healthy', 1: 'unknown' }

/** Name of a `collector_health.status` code (docs/protocol.md §3). */
export function healthName(code: number): string {
  return HEALTH[code] ?? `status-${code}`
}

// Formatting a date is the costliest step of a message record; a chunk's messages mostly share a
// millisecond, so the last result is kept.
let lastMs = NaN
let lastIso: string | null = null

/** A millisecond epoch time as ISO-8601; `null` when out of the Date range. */
function isoOrNull(ms: number): string | null {
  if (ms === lastMs) return lastIso
  const d = new Date(ms)
  lastMs = ms
  lastIso = Number.isNaN(d.getTime()) ? null : d.toISOString()
  return lastIso
}

/** A millisecond epoch time (from the wall clock) as an ISO-8601 string. */
export function isoTime(ms: number): string {
  return isoOrNull(ms) ?? new Date(0).toISOString()
}

/** A message timestamp (ns since the epoch) as ISO-8601 with millisecond precision; `null` when out of range. */
export function isoFromNs(ns: bigint): string | null {
  return isoOrNull(Number(ns / 1_000_000n))
}
