// Byte helpers shared by the modules (and their tests).

/**
 * Joins byte chunks into one Uint8Array of `length` bytes (the first `length` bytes of the chunks);
 * no copy for one chunk. The bytes go into `into` (at least `length` long) when given, else into a new array.
 */
export function concatBytes(parts: readonly Uint8Array[], length = parts.reduce((n, p) => n + p.length, 0), into?: Uint8Array): Uint8Array {
  if (parts.length === 1 && parts[0].length >= length) return plainBytes(parts[0]).subarray(0, length)
  const out = into ?? new Uint8Array(length)
  let at = 0
  for (const p of parts) {
    if (at >= length) break
    const n = Math.min(p.length, length - at)
    out.set(n === p.length ? p : p.subarray(0, n), at)
    at += n
  }
  return into ? out.subarray(0, length) : out
}

/** A plain Uint8Array view of `bytes` (a Node Buffer is a subclass; one class keeps the scanner's loads monomorphic). */
export function plainBytes(bytes: Uint8Array): Uint8Array {
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
