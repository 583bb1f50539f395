/**
 * `gateway check` on the `fleet` block: it needs the shared PostgreSQL session store, and its
 * secret variable set (named by path, never its value); a complete block passes.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { preflight } from './preflight.ts'

const dirs: string[] = []
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

async function check(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-fleet-config-'))
  dirs.push(dir)
  const file = join(dir, 'gateway.json')
  await writeFile(file, JSON.stringify({ auth: { allowUnauthenticated: true }, profiles: [], ...raw }))
  return (await preflight(file, { connect: false, env })).problems
}

const STORE = { parking: { store: { kind: 'postgres', urlEnv: 'FLEET_DB' } } }
const ENV = { FLEET_DB: 'postgres://db.invalid/gateway', FLEET_SECRET: 's3cret-value' }

describe('gateway check on fleet', () => {
  it('passes a fleet on a postgres session store with its secret set', async () => {
    expect(await check({ ...STORE, fleet: { secretEnv: 'FLEET_SECRET', leaseMs: 2000, address: 'http://10.0.0.5:8787' } }, ENV)).toEqual([])
  })

  it('needs a postgres session store', async () => {
    expect(await check({ fleet: { secretEnv: 'FLEET_SECRET' } }, ENV)).toEqual(["fleet: needs parking.store of kind 'postgres' (the fleet's directory and adoptable sessions live there)"])
  })

  it('names the unset secret variable, never a value', async () => {
    const problems = await check({ ...STORE, fleet: { secretEnv: 'FLEET_SECRET' } }, { FLEET_DB: ENV.FLEET_DB })
    expect(problems).toEqual(['fleet.secretEnv: environment variable FLEET_SECRET is not set (it must hold the secret shared by the fleet)'])
  })

  it('refuses unknown keys and a malformed address', async () => {
    const problems = await check({ ...STORE, fleet: { secretEnv: 'FLEET_SECRET', address: 'not a url', secret: 'inline' } }, ENV)
    expect(problems).toEqual(['fleet.address: Invalid URL', 'fleet.secret: unknown key'])
    expect(problems.join('\n')).not.toContain('inline')
  })
})
