// Polling with deadlines and readable failures (no fixed sleeps where a condition can be awaited):
// the one polling helper of the test suites.

export interface WaitOptions {
  /** Give up after this long, ms (real time). Default 20,000. */
  readonly timeoutMs?: number
  /**
   * The longest pause between two probes, ms. The first pauses are shorter (1 ms, doubling up to
   * this), so a condition that holds soon is seen soon and a slow one is not probed in a busy loop.
   * Default 100.
   */
  readonly intervalMs?: number
  /** What to show of the observed state when giving up. */
  readonly describe?: () => unknown
}

/** Polls `probe` until it returns a value other than undefined; fails with `what` and the last observation. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, opts: WaitOptions = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000)
  const longest = opts.intervalMs ?? 100
  for (let pause = 1; ; pause = Math.min(2 * pause, longest)) {
    const got = await probe()
    if (got !== undefined) return got
    if (Date.now() > deadline) {
      const seen = opts.describe ? `\nlast seen: ${JSON.stringify(opts.describe(), null, 1).slice(0, 4000)}` : ''
      throw new Error(`timed out waiting for ${what}${seen}`)
    }
    await new Promise((r) => setTimeout(r, pause))
  }
}
