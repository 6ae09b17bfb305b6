// The ingest codec's error types, one per failure site (style.md §7).

/** A message cannot be encoded within docs/protocol.md §1.3's limits (blob > 65,535 bytes, message > 65,536). */
export class IngestEncodeError extends Error {
  override name = 'IngestEncodeError'
}

/** Bytes that are not a valid ingest message stream: unknown rpc id, bad `_len`, truncated input. */
export class IngestDecodeError extends Error {
  override name = 'IngestDecodeError'
}

/** Bytes that are not a valid LZ4 frame stream: bad magic, header checksum, block size, corrupt block. */
export class Lz4FrameError extends Error {
  override name = 'Lz4FrameError'
}
