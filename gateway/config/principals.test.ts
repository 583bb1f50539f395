/**
 * The principals file `gateway token create` writes and `gateway serve` reads: one entry per id
 * unless replaced, private to its owner, and a listed key that is not a token hash refused by its path.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createToken, DuplicatePrincipalError, hashToken, readPrincipals } from './principals.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-principals-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('createToken', () => {
  it('refuses an id already in the file unless replace, which leaves one entry holding the new token', async () => {
    const file = join(dir, 'principals.json')
    const first = await createToken(file, { id: 'app', scope: { tenant: 'a' } })
    await expect(createToken(file, { id: 'app', scope: { tenant: 'b' } })).rejects.toThrow(DuplicatePrincipalError)
    expect(Object.keys((await readPrincipals(file)).principals)).toEqual([hashToken(first)])
    const second = await createToken(file, { id: 'app', scope: { tenant: 'b' } }, { replace: true })
    expect((await readPrincipals(file)).principals).toEqual({ [hashToken(second)]: { id: 'app', scope: { tenant: 'b' } } })
    await createToken(file, { id: 'other', operator: true })
    expect(Object.keys((await readPrincipals(file)).principals)).toHaveLength(2)
  })

  it('writes the file readable and writable by its owner only', async () => {
    const file = join(dir, 'principals.json')
    await createToken(file, { id: 'ops', operator: true })
    expect((await stat(file)).mode & 0o777).toBe(0o600)
  })
})

describe('readPrincipals', () => {
  it('names a key that is not a token hash by its path', async () => {
    const file = join(dir, 'principals.json')
    await writeFile(file, JSON.stringify({ version: 1, principals: { 'not-a-hash': { id: 'x' } } }))
    await expect(readPrincipals(file)).rejects.toThrow(/principals\.json: principals\.not-a-hash: the key is not a SHA-256 hex digest/)
    expect(await readFile(file, 'utf8')).toContain('not-a-hash')
  })
})
