// A CPU profile of kube-apiserver over a window (`--real-pprof DIR`): the server must run with
// `--profiling=true`; `/debug/pprof/profile?seconds=N` answers after N seconds with a gzipped
// pprof protobuf, read by `go tool pprof`.
import { request } from 'node:https'
import { readFileSync, writeFileSync } from 'node:fs'

export interface ProfileAuth {
  readonly ca: string
  readonly certFile: string
  readonly keyFile: string
}

/** Starts a CPU profile of `seconds`; the promise settles with its size once it is written to `file`. */
export function captureProfile(server: string, auth: ProfileAuth, seconds: number, file: string): Promise<number> {
  const url = new URL(`/debug/pprof/profile?seconds=${seconds}`, server)
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: auth.ca, cert: readFileSync(auth.certFile), key: readFileSync(auth.keyFile), timeout: (seconds + 30) * 1000 }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('error', reject)
      res.on('end', () => {
        const body = Buffer.concat(chunks)
        if (res.statusCode !== 200) return reject(new Error(`GET ${url.pathname}: HTTP ${res.statusCode} ${body.subarray(0, 200).toString()}`))
        writeFileSync(file, body)
        resolve(body.length)
      })
    })
    req.on('timeout', () => req.destroy(new Error(`GET ${url.pathname}: no answer within ${seconds + 30} s`)))
    req.on('error', reject)
    req.end()
  })
}
