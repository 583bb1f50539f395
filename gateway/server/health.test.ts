/**
 * readyz's verdict per check, as an orchestrator reads it: stores that cannot be written, an
 * unreachable queue, a failing database or engine each make it 503 `not_ready` and say `failed`
 * under their name; all of them answering is 200 `ready`. The routes answer only GET and HEAD.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createHealthRoutes, type HealthDeps, type HealthOptions } from './health.ts'

const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const done of cleanup.splice(0)) await done()
})

async function serve(options: HealthOptions, deps: Partial<HealthDeps> = {}): Promise<(method?: string, path?: string) => Promise<{ status: number; body: any }>> {
  const handle = createHealthRoutes(options, { logins: [], profiles: () => [], draining: () => false, ...deps })
  const server: Server = createServer((req, res) => {
    void Promise.resolve(handle(req, res, new URL(req.url ?? '/', 'http://x').pathname)).then((answered) => {
      if (!answered) res.writeHead(404).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanup.push(() => new Promise((resolve) => server.close(resolve)))
  const { port } = server.address() as { port: number }
  return async (method = 'GET', path = '/readyz') => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method })
    return { status: res.status, body: await res.json() }
  }
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-health-'))
  cleanup.push(() => rm(dir, { recursive: true, force: true }))
  return dir
}

describe('readyz', () => {
  it('is ready when the stores, the queue, the database and every engine answer', async () => {
    const ready = await serve(
      { writableDirs: [await tempDir()], dependencies: { database: async () => true, engines: { cli_primary: async () => true } } },
      { queueReachable: async () => 1 },
    )
    expect(await ready()).toEqual({ status: 200, body: { status: 'ready', checks: { accepting: 'ok', stores: 'ok', queue: 'ok', database: 'ok', engines: { cli_primary: 'ok' } } } })
  })

  it('is not ready, naming the failed check, for a store it cannot write, an unreachable queue, a failing database or engine', async () => {
    const file = join(await tempDir(), 'a-file')
    await writeFile(file, '')
    const cases: Array<[HealthOptions, Partial<HealthDeps>, Record<string, unknown>]> = [
      [{ writableDirs: [join(file, 'under-a-file')] }, {}, { stores: 'failed' }],
      [{}, { queueReachable: () => Promise.reject(new Error('down')) }, { queue: 'failed' }],
      [{ dependencies: { database: async () => false } }, {}, { database: 'failed' }],
      [{ dependencies: { engines: { cli_secondary: async () => true, cli_primary: () => Promise.reject(new Error('gone')) } } }, {}, { engines: { cli_primary: 'failed', cli_secondary: 'ok' } }],
    ]
    for (const [options, deps, failed] of cases) {
      const answer = await (await serve(options, deps))()
      expect(answer).toEqual({ status: 503, body: { status: 'not_ready', checks: { accepting: 'ok', ...failed } } })
    }
  })

  it('answers only GET and HEAD; healthz answers ok while readyz may not', async () => {
    const ask = await serve({ dependencies: { database: async () => false } })
    expect(await ask('POST')).toEqual({ status: 405, body: { error: 'method not allowed', code: 'method_not_allowed' } })
    expect(await ask('GET', '/healthz')).toEqual({ status: 200, body: { status: 'ok' } })
  })
})
