// The value types of option tables: each parses and validates text and describes what it accepts.
import { ConfigError, type ValueType } from './options.ts'

const fail = (problem: string): never => {
  throw new ConfigError(problem)
}

/** Digits only, and within range. `unit` names it in the README (`seconds, 1–25`). */
export function integer(opts: { min: number; max: number; hint: string; unit?: string }): ValueType<number> {
  return {
    hint: opts.hint,
    accepts: `${opts.unit ?? 'whole number'}, ${opts.min}–${opts.max}`,
    parse(text) {
      if (!/^\d+$/.test(text.trim())) fail('is not a whole number')
      const n = Number(text)
      if (n < opts.min || n > opts.max) fail(`is out of range (${opts.min}–${opts.max})`)
      return n
    },
  }
}

/** Seconds as a decimal number above zero (`0.5`, `30`). */
export const positiveSeconds: ValueType<number> = {
  hint: 'SECONDS',
  accepts: 'seconds, above 0 (decimals allowed)',
  parse(text) {
    const n = Number(text)
    if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n > 0)) fail('is not a positive number')
    return n
  },
}

/** One of a fixed list of words; the hint defaults to `a|b`. */
export function oneOf<const W extends string>(words: readonly W[], hint = words.join('|')): ValueType<W> {
  return {
    hint,
    accepts: words.map((w) => `\`${w}\``).join(', '),
    choices: words,
    parse: (text) => ((words as readonly string[]).includes(text) ? (text as W) : fail(`is not one of ${words.join(', ')}`)),
  }
}

/** `true` or `false` (a switch: as a flag, `--x` / `--no-x`). */
export const boolean: ValueType<boolean> = {
  hint: '',
  accepts: 'switch; `true` or `false` in the environment',
  switch: true,
  parse: (text) => (text === 'true' ? true : text === 'false' ? false : fail('is not true or false')),
}

/** A host name or address: no spaces, no slashes. */
export const hostName: ValueType<string> = {
  hint: 'HOST',
  accepts: 'host name or IP address',
  parse(text) {
    const host = text.trim()
    if (!host || /[\s/]/.test(host)) fail('is not a host name or address')
    return host
  },
}

/** Any non-empty text (a file name, a hostname we send as is). */
export function text(hint: string, accepts: string): ValueType<string> {
  return { hint, accepts, parse: (t) => t.trim() || fail('is empty') }
}

/** A listener address. */
export interface HostPort {
  readonly host: string
  readonly port: number
}

/** `HOST:PORT`, IPv6 hosts in brackets, an empty host meaning all interfaces (`:8080`). */
export const hostPort: ValueType<HostPort> = {
  hint: 'HOST:PORT',
  accepts: '`HOST:PORT` (IPv6 in brackets)',
  parse(text) {
    const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim())
    const port = m ? Number(m[3]) : NaN
    if (!m || port > 65535) fail('is not HOST:PORT (e.g. 0.0.0.0:8080)')
    return { host: m![1] ?? (m![2] || '0.0.0.0'), port }
  },
}

/** `HOST:PORT`, or `none` for off. */
export const hostPortOrNone: ValueType<HostPort | undefined> = {
  hint: 'HOST:PORT',
  accepts: '`HOST:PORT` or `none`',
  parse: (text, from) => (text.trim() === 'none' ? undefined : hostPort.parse(text, from)),
}

/** `HOST:PORT` as typed (brackets around IPv6). */
export const formatHostPort = ({ host, port }: HostPort): string => `${host.includes(':') ? `[${host}]` : host}:${port}`

/** A file to write, or none (the default ''). */
export const optionalFile: ValueType<string | undefined> = {
  hint: 'FILE',
  accepts: 'file name',
  parse: (t) => t || undefined,
}

/** `key=value`, repeatable, with length limits counted in characters. */
export function keyValues(limits: { key: number; value: number }): ValueType<ReadonlyArray<readonly [string, string]>> {
  return {
    hint: 'KEY=VALUE',
    accepts: `\`key=value\` (key ≤ ${limits.key}, value ≤ ${limits.value} characters), repeatable`,
    repeatable: true,
    parse(text) {
      const at = text.indexOf('=')
      if (at <= 0) fail('is not key=value')
      const key = text.slice(0, at)
      const value = text.slice(at + 1)
      if ([...key].length > limits.key) fail(`has a key longer than ${limits.key} characters`)
      if ([...value].length > limits.value) fail(`has a value longer than ${limits.value} characters`)
      return [[key, value] as const]
    },
  }
}
