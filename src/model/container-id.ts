// A container id kept compactly: `containerd://` (or another common runtime's prefix) and 64
// lowercase hex digits, what every runtime reports, take 33 characters of one byte instead of 77
// (a 56-byte string instead of 96: bench/README.md, issue 34). Any other id is kept as it is.
//
// Packed form: a prefix code (1…PREFIXES.length) and the 32 bytes the hex digits spell, each a
// code unit ≤ 0xFF (a one-byte string in V8). An id that is not packed but starts with a code unit
// ≤ PREFIXES.length is kept behind a '\u0000', so that no id reads as another.

const PREFIXES: readonly string[] = Object.freeze(['containerd://', 'docker://', 'cri-o://'])
const HEX_DIGITS = 64

/** The value of the lowercase hex digit `c` (a code unit), or 0x100 (past a byte: marks the pack as failed). */
const nibble = (c: number): number => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : 0x100)

/** The byte spelt by the two hex digits at `i` of `id`, or a value over 0xFF when they are not hex digits. */
const byte = (id: string, i: number): number => (nibble(id.charCodeAt(i)) << 4) | nibble(id.charCodeAt(i + 1))

/** The code unit of the lowercase hex digit of value `n` (0…15). */
const digitCode = (n: number): number => (n < 10 ? 48 + n : 87 + n)

/** The code unit of hex digit `i` (0…63) of a packed id. */
const d = (packed: string, i: number): number => digitCode((packed.charCodeAt(1 + (i >>> 1)) >>> ((i & 1) === 0 ? 4 : 0)) & 15)

/** The prefix code of `id` when it has a known prefix and 64 more code units, else 0. */
function prefixCode(id: string): number {
  for (let k = 0; k < PREFIXES.length; k++) {
    const p = PREFIXES[k]!
    if (id.length === p.length + HEX_DIGITS && id.startsWith(p)) return k + 1
  }
  return 0
}

/** A code unit over 0xFF: a failed pack. */
const NOT_A_BYTE = /[^\u0000-\u00ff]/

/** The compact form of a container id (see the top of this file); {@link unpackContainerId} gives `id` back. */
export function packContainerId(id: string): string {
  const code = prefixCode(id)
  if (code !== 0) {
    const s = PREFIXES[code - 1]!.length
    // One call with every code unit: no array, no string but the result (it runs for every
    // container of a LIST); a digit that is not a lowercase hex digit shows as a code unit > 0xFF.
    const packed = String.fromCharCode(
      code,
      byte(id, s + 0), byte(id, s + 2), byte(id, s + 4), byte(id, s + 6), byte(id, s + 8), byte(id, s +
      10), byte(id, s + 12), byte(id, s + 14), byte(id, s + 16), byte(id, s + 18), byte(id, s + 20),
      byte(id, s + 22), byte(id, s + 24), byte(id, s + 26), byte(id, s + 28), byte(id, s + 30), byte(id, s
      + 32), byte(id, s + 34), byte(id, s + 36), byte(id, s + 38), byte(id, s + 40), byte(id, s + 42),
      byte(id, s + 44), byte(id, s + 46), byte(id, s + 48), byte(id, s + 50), byte(id, s + 52), byte(id, s
      + 54), byte(id, s + 56), byte(id, s + 58), byte(id, s + 60), byte(id, s + 62)
    )
    if (!NOT_A_BYTE.test(packed)) return packed
  }
  return id.length > 0 && id.charCodeAt(0) <= PREFIXES.length ? `\u0000${id}` : id
}

/** The container id whose compact form is `packed`. */
export function unpackContainerId(packed: string): string {
  const first = packed.length > 0 ? packed.charCodeAt(0) : -1
  if (first === 0) return packed.slice(1)
  if (first < 1 || first > PREFIXES.length || packed.length !== 1 + HEX_DIGITS / 2) return packed
  const p = packed
  // The prefix (a constant) and one call with the 64 digits: two strings made, no array (it runs
  // for every container of a new connection's announcements).
  return PREFIXES[first - 1]! + String.fromCharCode(
    d(p, 0), d(p, 1), d(p, 2), d(p, 3), d(p, 4), d(p, 5), d(p, 6), d(p, 7), d(p, 8), d(p, 9), d(p, 10),
    d(p, 11), d(p, 12), d(p, 13), d(p, 14), d(p, 15), d(p, 16), d(p, 17), d(p, 18), d(p, 19), d(p, 20),
    d(p, 21), d(p, 22), d(p, 23), d(p, 24), d(p, 25), d(p, 26), d(p, 27), d(p, 28), d(p, 29), d(p, 30),
    d(p, 31), d(p, 32), d(p, 33), d(p, 34), d(p, 35), d(p, 36), d(p, 37), d(p, 38), d(p, 39), d(p, 40),
    d(p, 41), d(p, 42), d(p, 43), d(p, 44), d(p, 45), d(p, 46), d(p, 47), d(p, 48), d(p, 49), d(p, 50),
    d(p, 51), d(p, 52), d(p, 53), d(p, 54), d(p, 55), d(p, 56), d(p, 57), d(p, 58), d(p, 59), d(p, 60),
    d(p, 61), d(p, 62), d(p, 63)
  )
}
