/**
 * What `gateway check` (and `serve` before listening) reports beyond the file's own shape, without
 * a database round trip: a hooks module that does not load, the server's own construction checks,
 * a store folder it cannot create, each at its path.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { preflight } from './preflight.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-preflight-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function problemsOf(config: Record<string, unknown>): Promise<string[]> {
  const file = join(dir, 'gateway.json')
  await writeFile(file, JSON.stringify({ auth: { allowUnauthenticated: true }, ...config }))
  return (await preflight(file, { connect: false })).problems
}

describe('preflight', () => {
  it('passes a minimal file', async () => {
    expect(await problemsOf({})).toEqual([])
  })

  it('names a hooks module that fails to load', async () => {
    await writeFile(join(dir, 'hooks.mjs'), "throw new Error('hooks exploded')\n")
    expect(await problemsOf({ hooks: 'hooks.mjs' })).toEqual([`hooks: ${join(dir, 'hooks.mjs')} cannot be loaded: hooks exploded`])
  })

  it("reports the server's own construction checks at the option they name", async () => {
    expect(await problemsOf({ requireAvailableProfile: true })).toEqual([expect.stringMatching(/^requireAvailableProfile: /)])
  })

  it('names a store folder it cannot create by the key that sets it', async () => {
    await writeFile(join(dir, 'a-file'), '')
    expect(await problemsOf({ profileStore: { kind: 'file', file: 'a-file/profiles.json' } })).toEqual([expect.stringMatching(/^profileStore\.file: /)])
  })
})
