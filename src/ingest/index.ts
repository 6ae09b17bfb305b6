// The reducer's language: ingest messages (docs/protocol.md §2–§3) and LZ4 framing (§1), both ways.
export * from './messages.ts'
export { IngestDecodeError, IngestEncodeError, Lz4FrameError } from './errors.ts'
export { MAX_MESSAGE_BYTES } from './layout.ts'
export { createMessageWriter, encodeMessage, type MessageWriter } from './encode.ts'
export { createMessageDecoder, messageSize, type MessageDecoder } from './decode.ts'
export { fitMessage, truncateUtf8 } from './fit.ts'
export { compressBlock } from './lz4-block.ts'
export { BLOCK_MAX, createLz4FrameReader, createLz4FrameWriter, frameHeader, type Lz4FrameReader, type Lz4FrameWriter, type Lz4FrameWriterOptions } from './lz4-frame.ts'
