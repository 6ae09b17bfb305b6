// Line framing of a watch body: UTF-8 bytes in, one string per `\n`-terminated line out.
//
// Each chunk is decoded once (streaming TextDecoder, so a multi-byte character split across chunks
// is kept whole; `\n` never occurs inside a UTF-8 sequence, so splitting the decoded text is exact).
// A line spanning several chunks is kept as a list of parts and joined once when its `\n` arrives,
// so a huge line costs O(length), never a quadratic re-concatenation.

/** Splits a byte stream into lines; feed chunks with {@link LineFramer.push}. */
export class LineFramer {
  private readonly decoder = new TextDecoder('utf-8')
  private parts: string[] = []
  private partial = ''

  /**
   * Appends a chunk and returns the lines it completed, in order, without their `\n` (a `\r`
   * before it is kept; JSON.parse ignores it). Returns a shared empty array when none completed.
   */
  push(chunk: Uint8Array): string[] {
    const text = this.decoder.decode(chunk, { stream: true })
    let nl = text.indexOf('\n')
    if (nl < 0) {
      if (text.length > 0) this.keep(text)
      return NONE
    }
    const lines: string[] = []
    let start = 0
    // The first line may continue what earlier chunks left over.
    lines.push(this.takePartial(text.slice(0, nl)))
    start = nl + 1
    while ((nl = text.indexOf('\n', start)) >= 0) {
      lines.push(text.slice(start, nl))
      start = nl + 1
    }
    if (start < text.length) this.keep(text.slice(start))
    return lines
  }

  /** Characters received after the last `\n` (a truncated last line); '' when the body ended on a line end. */
  rest(): string {
    const tail = this.decoder.decode()
    if (tail) this.keep(tail)
    return this.takePartial('')
  }

  /** Bytes of text currently held for an unfinished line (for memory accounting). */
  get pendingLength(): number {
    let n = this.partial.length
    for (const p of this.parts) n += p.length
    return n
  }

  private keep(text: string): void {
    if (this.partial === '') this.partial = text
    else {
      this.parts.push(this.partial)
      this.partial = text
    }
  }

  private takePartial(head: string): string {
    if (this.partial === '') return head
    let line: string
    if (this.parts.length === 0) line = this.partial + head
    else {
      this.parts.push(this.partial, head)
      line = this.parts.join('')
      this.parts = []
    }
    this.partial = ''
    return line
  }
}

const NONE: string[] = []
