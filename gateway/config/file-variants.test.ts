/**
 * Configuration files the kit's self-serve target never writes (the generated mutants
 * that survive the kit there are the operator's to see, so npm test holds them). Covered here:
 * a principals file with an empty id or edited while serving, a `shutdown` block with only
 * graceMs, a provider profile with no `engines` block, a hooks module that also has a default
 * export, and a file with no principals file, served and shut down in process.
 */
import { Writable } from 'node:stream'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wireEngines } from './engine-wiring.ts'
import { validateConfig } from './load.ts'
import { LivePrincipals } from './live-principals.ts'
import { readPrincipals } from './principals.ts'
import { configSchema } from './schema.ts'
import { serveConfigFile } from './serve.ts'
import { loadHooks } from './server-options.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-file-variants-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('configuration files the self-serve target does not write', () => {
  it('refuses a principals file whose principal id is empty (the id names the principal in logs)', async () => {
    const file = join(dir, 'principals.json')
    await writeFile(file, JSON.stringify({ version: 1, principals: { ['a'.repeat(64)]: { id: '' } } }))
    await expect(readPrincipals(file)).rejects.toThrow(/id/)
  })

  it('notices a principals file rewritten in place (the reload without SIGHUP)', async () => {
    const file = join(dir, 'watched.json')
    await writeFile(file, JSON.stringify({ version: 1, principals: {} }))
    const live = await LivePrincipals.load(file)
    let stop: (() => void) | undefined
    const changed = new Promise<void>((resolve) => {
      stop = live.watch(resolve, { intervalMs: 10 })
    })
    try {
      // A new size as well as a new mtime, so a coarse clock cannot hide the change.
      await writeFile(file, JSON.stringify({ version: 1, principals: { ['b'.repeat(64)]: { id: 'app' } } }))
      await changed
    } finally {
      stop?.()
    }
    expect((await live.reload()).ok).toBe(true)
    expect(live.count).toBe(1)
  })

  it('gives shutdown.killGraceMs its documented default (5 s) when the block sets only graceMs', () => {
    const parsed = configSchema.parse({ auth: { allowUnauthenticated: true }, profiles: [], shutdown: { graceMs: 100 } })
    expect(parsed.shutdown).toEqual({ graceMs: 100, killGraceMs: 5000 })
  })

  it('wires a provider profile when the file has no engines block', async () => {
    const loaded = validateConfig({
      auth: { allowUnauthenticated: true },
      profiles: [{ name: 'p', engine: 'provider', provider: { id: 'openai-compatible', baseURL: 'http://127.0.0.1:9/v1', model: 'm' } }],
    }, dir)
    expect(loaded.problems).toEqual([])
    const wiring = await wireEngines(loaded.config!, loaded.config!.profiles!, undefined)
    expect(typeof wiring.createEngineRunner).toBe('function')
  })

  it('reads a hooks module\'s named exports when its default export is a function (docs/operating.md: "a module exporting any of")', async () => {
    const file = join(dir, 'hooks.mjs')
    await writeFile(file, 'export default function main() {}\nexport function authenticate() { return { id: "named" } }\n')
    const hooks = await loadHooks(file)
    expect(hooks.authenticate?.({} as never)).toEqual({ id: 'named' })
  })

  it('serves a file without a principals file and shuts down with the file\'s graceMs', async () => {
    const file = join(dir, 'gateway.json')
    await writeFile(file, JSON.stringify({ auth: { allowUnauthenticated: true }, profiles: [], shutdown: { graceMs: 300, killGraceMs: 50 }, logging: { level: 'info' } }))
    const lines: Array<Record<string, unknown>> = []
    const logDestination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>)
        done()
      },
    })
    const running = await serveConfigFile(file, { port: 0, host: '127.0.0.1', logDestination })
    expect((await fetch(`${running.url}/profiles`)).status).toBe(200)
    await running.shutdown()
    expect(lines.find((l) => l.msg === 'shutting down')?.graceMs).toBe(300)
  })
})
