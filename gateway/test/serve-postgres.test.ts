/**
 * An operator puts the job queue and the session store on PostgreSQL from the
 * configuration file alone. The URL (which carries the password) comes from the environment
 * variable the file names; two `gateway serve` processes on one database share the queue: a job
 * submitted to one is visible to the other and runs to its end once.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { hashToken } from '../config/principals.ts'
import { runGateway, serveGateway, type ServingGateway } from './gateway-command.ts'
import { until } from './harness.ts'
import { startPostgresServer, type PostgresServer } from './postgres-server.ts'

const TOKEN = 'pg-operator-token'
let pg: PostgresServer
let model: Awaited<ReturnType<typeof startFakeModelServer>>
let dir: string
const gateways: ServingGateway[] = []

beforeAll(async () => {
  pg = await startPostgresServer()
  model = await startFakeModelServer()
  dir = await mkdtemp(join(tmpdir(), 'gw-serve-pg-'))
}, 120_000)
afterAll(async () => {
  for (const gw of gateways) gw.child.kill('SIGKILL')
  await model?.close()
  await pg?.stop()
  if (dir) await rm(dir, { recursive: true, force: true })
})

async function writeConfig(urlEnv: string): Promise<string> {
  await mkdir(join(dir, 'work'), { recursive: true })
  await writeFile(join(dir, 'principals.json'), JSON.stringify({ version: 1, principals: { [hashToken(TOKEN)]: { id: 'ops', operator: true } } }))
  const file = join(dir, 'gateway.yaml')
  await writeFile(file, [
    'auth: { principalsFile: principals.json }',
    'profiles:',
    `  - { name: default, engine: provider, provider: { id: openai-compatible, baseURL: "${model.baseURL}", model: fake-small } }`,
    'allowedCwdRoots: [work]',
    `parking: { store: { kind: postgres, urlEnv: ${urlEnv} } }`,
    `queue: { adapter: { kind: postgres, urlEnv: ${urlEnv} }, maxConcurrency: 1 }`,
    'shutdown: { graceMs: 2000 }',
  ].join('\n'))
  return file
}

describe('gateway serve with PostgreSQL from the configuration file', { timeout: 120_000 }, () => {
  it('refuses to start, naming the variable, when the database URL is not set', async () => {
    const file = await writeConfig('GATEWAY_TEST_DATABASE_URL_UNSET')
    const result = await runGateway(['serve', '--config', file, '--port', '0'], { ...process.env, GATEWAY_TEST_DATABASE_URL_UNSET: '' })
    expect(result.code).not.toBe(0)
    expect(result.stderr + result.stdout).toContain('queue.adapter.urlEnv: environment variable GATEWAY_TEST_DATABASE_URL_UNSET is not set')
  })

  it('gateway check connects to the declared database and passes', async () => {
    const url = await pg.createDatabase('checked')
    const file = await writeConfig('DATABASE_URL')
    const result = await runGateway(['check', '--config', file], { ...process.env, DATABASE_URL: url })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
  })

  it('readyz asks the database: ok while it answers, 503 with database and queue failed once it is gone', async () => {
    const url = await pg.createDatabase('readiness')
    const file = await writeConfig('DATABASE_URL')
    const gw = await serveGateway(file, { ...process.env, DATABASE_URL: url })
    gateways.push(gw)
    const ready = await fetch(`${gw.origin}/readyz`)
    expect(ready.status).toBe(200)
    expect(((await ready.json()) as { checks: Record<string, unknown> }).checks).toMatchObject({ database: 'ok', queue: 'ok' })
    // The database dropped under the running gateway (its connections ended with it).
    const { default: pgClient } = await import('pg')
    const admin = new pgClient.Client({ connectionString: pg.url })
    await admin.connect()
    await admin.query('DROP DATABASE readiness WITH (FORCE)')
    await admin.end()
    const gone = await until(async () => fetch(`${gw.origin}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as { checks: Record<string, unknown> } })),
      (r) => r.status === 503, 'readyz saw the database gone')
    expect(gone.body.checks).toMatchObject({ database: 'failed', queue: 'failed' })
    expect(JSON.stringify(gone.body)).not.toContain(url)
    gw.child.kill('SIGKILL')
  })

  it('shares one job queue between two processes, and never logs the URL', async () => {
    const url = await pg.createDatabase('served')
    const file = await writeConfig('DATABASE_URL')
    const env = { ...process.env, DATABASE_URL: url }
    const [a, b] = await Promise.all([serveGateway(file, env), serveGateway(file, env)])
    gateways.push(a, b)
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
    const submitted = await fetch(`${a.url}/jobs`, { method: 'POST', headers, body: JSON.stringify({ session: { prompt: 'shared queue', cwd: join(dir, 'work') } }) })
    expect(submitted.status).toBeLessThan(300)
    const { job } = (await submitted.json()) as { job: { id: string } }
    const fromB = await until(async () => ((await (await fetch(`${b.url}/jobs/${job.id}`, { headers })).json()) as { job?: { status: string } }).job,
      (seen) => seen !== undefined && !['queued', 'running'].includes(seen.status), 'the job finished, seen from the other process')
    expect(fromB?.status).toBe('succeeded')
    for (const gw of [a, b]) {
      expect((await fetch(`${gw.origin}/readyz`)).status).toBe(200)
      gw.child.kill('SIGTERM')
      expect(await gw.exited).toEqual({ code: 0, signal: null })
      expect(gw.lines.join('\n') + gw.stderr()).not.toContain(url)
    }
  })
})
