/**
 * The fake model APIs behind a target's real engines (manifest `realEngines`).
 * The target's CLI is configured with the API's address before the gateway starts, so the manifest
 * names it; the kit learns it from there. Before the preflight, each address is asked which fake it
 * is (`GET /fake-model-api`): the right fake answering is fine (the implementer started it, e.g.
 * `npx fake-anthropic-messages --port 4100`); nothing listening on a loopback port means the kit
 * starts the fake there for the run; anything else is one problem line (exit 2), never a run whose
 * turns time out and read as the gateway's failures.
 */
import { request } from 'undici'
import { REAL_ENGINES, type RealEngine, type TargetManifest } from './manifest-schema.ts'

export interface ModelApis {
  problems: string[]
  /** One line per fake the kit started (`cli_primary: the fake … started at http://…`). */
  started: string[]
  /** Model requests each fake the kit started has answered so far: 0 after a run means the CLI never reached it. */
  served(): Partial<Record<RealEngine, number>>
  close(): Promise<void>
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

export async function prepareModelApis(manifest: TargetManifest, timeoutMs = 2000): Promise<ModelApis> {
  const problems: string[] = []
  const started: string[] = []
  const closers: Array<() => Promise<void>> = []
  const counters: Partial<Record<RealEngine, () => number>> = {}
  const seen = new Map<string, RealEngine>()
  for (const [engine, entry] of Object.entries(manifest.realEngines ?? {}) as Array<[RealEngine, { modelApi: string } | undefined]>) {
    if (!entry) continue
    const field = `realEngines.${engine}.modelApi`
    const { api, probe } = REAL_ENGINES[engine]
    const url = new URL(entry.modelApi)
    const other = seen.get(url.host)
    if (other) {
      problems.push(`${field}: ${url.host} is already realEngines.${other}.modelApi; each engine's model API is a different fake, on its own port`)
      continue
    }
    seen.set(url.host, engine)
    const answer = await identify(url.origin, timeoutMs)
    if (answer.kind === 'answered') {
      if (answer.api !== probe) problems.push(`${field}: ${url.origin} answers, but not as ${api} (GET /fake-model-api: ${answer.detail})`)
      continue
    }
    if (!LOOPBACK.has(url.hostname) || !url.port) {
      problems.push(`${field}: nothing answers at ${url.origin} (${answer.detail}); start ${api} there (the kit starts it itself only on a loopback address with a port)`)
      continue
    }
    try {
      const fake = await startFake(engine, url.hostname.replace(/^\[|\]$/g, ''), Number(url.port))
      closers.push(fake.close)
      counters[engine] = fake.served
      started.push(`${engine}: ${api} started by the kit at ${url.origin}`)
    } catch (err) {
      problems.push(`${field}: could not start ${api} at ${url.origin}: ${(err as Error).message}`)
    }
  }
  return {
    problems,
    started,
    served: () => Object.fromEntries(Object.entries(counters).map(([engine, count]) => [engine, count()])),
    async close() {
      for (const close of closers.splice(0)) await close()
    },
  }
}

type Identity = { kind: 'answered'; api?: string; detail: string } | { kind: 'silent'; detail: string }

async function identify(origin: string, timeoutMs: number): Promise<Identity> {
  try {
    const res = await request(`${origin}/fake-model-api`, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
    const text = await res.body.text()
    let api: unknown
    try { api = (JSON.parse(text) as { api?: unknown }).api } catch { api = undefined }
    return { kind: 'answered', api: typeof api === 'string' ? api : undefined, detail: `HTTP ${res.statusCode} ${text.slice(0, 80)}` }
  } catch (err) {
    return { kind: 'silent', detail: (err as { code?: string }).code ?? (err as Error).message }
  }
}

/** The kit's own fakes, loaded only when a run needs one (they ship with the kit). */
async function startFake(engine: RealEngine, host: string, port: number): Promise<{ close(): Promise<void>; served(): number }> {
  if (engine === 'cli_primary') {
    const { startFakeAnthropicServer } = await import('../../fake-engines/model-apis/anthropic-messages/server.ts')
    const server = await startFakeAnthropicServer({ host, port })
    return { close: server.close, served: () => server.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages')).length }
  }
  const { startFakeResponsesServer } = await import('../../fake-engines/model-apis/openai-responses/server.ts')
  const server = await startFakeResponsesServer({ host, port })
  return { close: server.close, served: () => server.requests.length }
}
