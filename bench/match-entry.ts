// Runs the `match` section in this process and prints it as one JSON line: the child that
// bench/match-deno.ts starts on Deno (`deno run` takes the TypeScript sources as they are).
import { benchMatch } from './match.ts'

const deno = (globalThis as { Deno?: { version: { deno: string; v8: string } } }).Deno
const section = await benchMatch({ quick: process.argv.includes('--quick') })
const runtime = deno ? `Deno ${deno.version.deno} (V8 ${deno.version.v8})` : `Node ${process.version} (V8 ${process.versions.v8})`
console.log(JSON.stringify({ runtime, section }))
