// The reducer's acceptance rules for one connection's byte stream (docs/protocol.md §1.2–§1.4), as a
// pure state machine: bytes in (split anywhere), accepted messages and at most one close reason out.
import {
  createLz4FrameReader,
  createMessageDecoder,
  IngestDecodeError,
  Lz4FrameError,
  MAX_MESSAGE_BYTES,
  messageSize,
  type TimedMessage,
} from '../ingest/index.ts'
import { MINIMUM_VERSION, type CloseReason } from './close-reason.ts'

/** A message the reducer accepted, with its size on the (decompressed) wire, timestamp included. */
export interface ReceivedMessage {
  readonly msg: TimedMessage
  readonly size: number
}

/** What one `push` produced: the messages accepted in order, then the reason to close, if any. */
export interface SessionOutput {
  readonly messages: ReceivedMessage[]
  readonly close?: CloseReason
}

/**
 * Where the connection stands. `awaitFirst`: the first message is read raw. `awaitConnect` and
 * `connected`: everything is LZ4 (docs/protocol.md §1.2), `pending` holds decompressed bytes of an
 * unfinished message. `closed` is final.
 */
export type SessionState =
  | { readonly step: 'awaitFirst'; readonly pending: Uint8Array }
  | { readonly step: 'awaitConnect'; readonly pending: Uint8Array }
  | { readonly step: 'connected'; readonly pending: Uint8Array }
  | { readonly step: 'closed'; readonly reason: CloseReason }

/** One connection's decoding and acceptance. */
export interface TapSession {
  /** Consumes `chunk`. After a close reason was returned, further pushes return nothing. */
  push(chunk: Uint8Array): SessionOutput
  /** The peer ended the stream: the close reason (`peerClosed`, with any unfinished bytes). */
  end(): CloseReason
  readonly state: SessionState
  /** Bytes received after the first message (the LZ4 stream). */
  readonly compressedBytes: number
}

const EMPTY = new Uint8Array(0)
const NOTHING: SessionOutput = { messages: [] }

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b
  if (b.length === 0) return a
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

function versionBelowMinimum(major: number, minor: number, patch: number): boolean {
  if (major !== MINIMUM_VERSION.major) return major < MINIMUM_VERSION.major
  if (minor !== MINIMUM_VERSION.minor) return minor < MINIMUM_VERSION.minor
  return patch < MINIMUM_VERSION.patch
}

// The ingest decoder reports an unknown rpc id only through its message; the id itself is read
// from the bytes (docs/protocol.md §2: u16 LE right after the 8-byte timestamp).
function decodeFailure(err: unknown, bytes: Uint8Array, at: number): CloseReason {
  const detail = err instanceof Error ? err.message : String(err)
  if (err instanceof IngestDecodeError && /unknown rpc/i.test(detail) && bytes.length - at >= 10) {
    return { kind: 'unknownRpc', rpcId: bytes[at + 8]! | (bytes[at + 9]! << 8) }
  }
  return { kind: 'malformed', detail }
}

/**
 * Splits `bytes` into complete messages. Returns their sizes, where the unfinished tail starts,
 * and the failure that stopped the scan (an unreadable or oversize message at `end`).
 */
function scan(bytes: Uint8Array): { sizes: number[]; end: number; failure?: CloseReason } {
  const sizes: number[] = []
  let at = 0
  for (;;) {
    let size: number | undefined
    try {
      size = messageSize(bytes, at)
    } catch (err) {
      return { sizes, end: at, failure: decodeFailure(err, bytes, at) }
    }
    if (size === undefined) return { sizes, end: at }
    if (size > MAX_MESSAGE_BYTES) return { sizes, end: at, failure: { kind: 'oversize', size } }
    if (bytes.length - at < size) return { sizes, end: at }
    sizes.push(size)
    at += size
  }
}

/** Decodes complete messages; on a decode error, salvages the ones before it (the reducer handles them in order). */
function decodeAll(bytes: Uint8Array, sizes: readonly number[]): { messages: TimedMessage[]; failure?: CloseReason } {
  try {
    return { messages: createMessageDecoder().push(bytes) }
  } catch {
    const messages: TimedMessage[] = []
    let at = 0
    for (const size of sizes) {
      try {
        messages.push(...createMessageDecoder().push(bytes.subarray(at, at + size)))
      } catch (err) {
        return { messages, failure: decodeFailure(err, bytes, at) }
      }
      at += size
    }
    return { messages }
  }
}

type OpenStep = 'awaitConnect' | 'connected'

/**
 * Applies docs/protocol.md §1.4 to each decoded message in order, starting at `step`; stops at the first
 * rejected one. Accepted messages go to `out`.
 */
function accept(
  step: OpenStep,
  msgs: readonly TimedMessage[],
  sizes: readonly number[],
  out: ReceivedMessage[],
): { step: OpenStep; rejected?: CloseReason } {
  for (let i = 0; i < msgs.length; i++) {
    const msg = msgs[i]!
    switch (msg.type) {
      case 'version_info':
        if (versionBelowMinimum(msg.major, msg.minor, msg.patch)) {
          return { step, rejected: { kind: 'oldVersion', version: `${msg.major}.${msg.minor}.${msg.patch}` } }
        }
        break
      case 'connect':
        step = 'connected'
        break
      default:
        if (step !== 'connected') return { step, rejected: { kind: 'notConnected', messageType: msg.type } }
    }
    out.push({ msg, size: sizes[i]! })
  }
  return { step }
}

/** Creates the acceptance state machine of one connection. */
export function createTapSession(): TapSession {
  let state: SessionState = { step: 'awaitFirst', pending: EMPTY }
  let compressedBytes = 0
  const lz4 = createLz4FrameReader()

  function close(reason: CloseReason, out: ReceivedMessage[]): SessionOutput {
    state = { step: 'closed', reason }
    return { messages: out, close: reason }
  }

  /** The raw first message (docs/protocol.md §1.2); the bytes after it go to the LZ4 stream. */
  function pushFirst(pending: Uint8Array, chunk: Uint8Array, out: ReceivedMessage[]): SessionOutput {
    const bytes = concat(pending, chunk)
    let size: number | undefined
    try {
      size = messageSize(bytes, 0)
    } catch (err) {
      return close(decodeFailure(err, bytes, 0), out)
    }
    if (size !== undefined && size > MAX_MESSAGE_BYTES) return close({ kind: 'oversize', size }, out)
    if (size === undefined || bytes.length < size) {
      state = { step: 'awaitFirst', pending: bytes === chunk ? chunk.slice() : bytes }
      return { messages: out }
    }
    const decoded = decodeAll(bytes.subarray(0, size), [size])
    if (decoded.failure) return close(decoded.failure, out)
    const accepted = accept('awaitConnect', decoded.messages, [size], out)
    if (accepted.rejected) return close(accepted.rejected, out)
    state = { step: accepted.step, pending: EMPTY }
    return pushCompressed(accepted.step, EMPTY, bytes.subarray(size), out)
  }

  /** Decompresses `chunk` and accepts the messages it completes. */
  function pushCompressed(step: OpenStep, pending: Uint8Array, chunk: Uint8Array, out: ReceivedMessage[]): SessionOutput {
    compressedBytes += chunk.length
    if (chunk.length === 0) return { messages: out }
    let pieces: Uint8Array[]
    try {
      pieces = lz4.push(chunk)
    } catch (err) {
      return close({ kind: 'lz4', detail: err instanceof Lz4FrameError ? err.message : String(err) }, out)
    }
    if (pieces.length === 0) return { messages: out }
    let bytes: Uint8Array
    if (pieces.length === 1) bytes = concat(pending, pieces[0]!)
    else {
      let total = pending.length
      for (const p of pieces) total += p.length
      bytes = new Uint8Array(total)
      bytes.set(pending)
      let o = pending.length
      for (const p of pieces) {
        bytes.set(p, o)
        o += p.length
      }
    }
    const scanned = scan(bytes)
    let used = 0
    for (const size of scanned.sizes) used += size
    const decoded = decodeAll(bytes.subarray(0, used), scanned.sizes)
    const accepted = accept(step, decoded.messages, scanned.sizes, out)
    const failure = accepted.rejected ?? decoded.failure ?? scanned.failure
    if (failure) return close(failure, out)
    // Copy the unfinished tail: a small view must not keep a large decompressed block alive.
    const tail = bytes.subarray(used)
    state = { step: accepted.step, pending: tail.length === 0 ? EMPTY : tail.slice() }
    return { messages: out }
  }

  return {
    get state() {
      return state
    },
    get compressedBytes() {
      return compressedBytes
    },
    push(chunk) {
      switch (state.step) {
        case 'closed':
          return NOTHING
        case 'awaitFirst':
          return pushFirst(state.pending, chunk, [])
        case 'awaitConnect':
        case 'connected':
          return pushCompressed(state.step, state.pending, chunk, [])
      }
    },
    end() {
      if (state.step !== 'closed') state = { step: 'closed', reason: { kind: 'peerClosed', trailingBytes: state.pending.length } }
      return state.reason
    },
  }
}
