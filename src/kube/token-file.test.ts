// The kubeconfig token file: found as kubectl finds it, read trimmed on every request.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { kubeconfigFiles, readTokenFile, tokenFileOf } from './token-file.ts'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function kubeconfig(users: object[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'kc-token-'))
  dirs.push(dir)
  const file = join(dir, 'config')
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Config', users }))
  return file
}

describe('tokenFileOf', () => {
  it('takes kubectl\'s tokenFile, else client-node\'s token-file, relative to the kubeconfig', () => {
    const file = kubeconfig([
      { name: 'a', user: { tokenFile: 'secrets/a' } },
      { name: 'b', user: { 'token-file': '/abs/b' } },
      { name: 'c', user: { tokenFile: '/abs/c', 'token-file': '/abs/other' } },
      { name: 'd', user: { token: 'x' } },
    ])
    expect(tokenFileOf([file], 'a')).toBe(join(file, '..', 'secrets', 'a'))
    expect(tokenFileOf([file], 'b')).toBe('/abs/b')
    expect(tokenFileOf([file], 'c')).toBe('/abs/c')
    expect(tokenFileOf([file], 'd')).toBeUndefined()
    expect(tokenFileOf(['/nonexistent/config', file], 'a')).toBe(join(file, '..', 'secrets', 'a'))
  })

  it('reads the files kubectl reads: the flag, else each of KUBECONFIG, else ~/.kube/config', () => {
    expect(kubeconfigFiles('/x', { KUBECONFIG: '/y' })).toEqual(['/x'])
    expect(kubeconfigFiles(undefined, { KUBECONFIG: ['/y', '', '/z'].join(delimiter) })).toEqual(['/y', '/z'])
    expect(kubeconfigFiles(undefined, {})[0]).toMatch(/\.kube\/config$/)
  })
})

describe('readTokenFile', () => {
  it('trims the token as client-go does, and refuses an empty file', async () => {
    const file = kubeconfig([])
    writeFileSync(file, '  tok-1\n')
    expect(await readTokenFile(file)).toBe('tok-1')
    writeFileSync(file, 'tok-2\n')
    expect(await readTokenFile(file)).toBe('tok-2')
    writeFileSync(file, '\n')
    await expect(readTokenFile(file)).rejects.toThrow(/is empty/)
  })
})
