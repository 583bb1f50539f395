/**
 * Test harness for the gateway: a real server on 127.0.0.1 with the provider engine on the real
 * fake model server, bearer principals, and small HTTP/WS helpers that record what came back.
 */
import type { IncomingMessage } from 'node:http'
import { mkdtemp, realpath } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { startFakeModelServer } from '../../fake-engines/provider-model/server.ts'
import { createAiSdkRunner, type AiSdkRunnerOptions } from '../engines/provider/index.ts'
import { createGatewayServer, type GatewayServer } from '../server/create-server.ts'
import type { GatewayServerOptions } from '../server/options.ts'
import type { Principal } from '../server/principal.ts'
import type { ProfileConfig, SessionServerFrame } from '../protocol/index.ts'

export const TOKENS = {
  operator: 'tok-operator',
  tenantA: 'tok-tenant-a',
  tenantB: 'tok-tenant-b',
  restricted: 'tok-restricted',
  manager: 'tok-manager',
} as const
export type Who = keyof typeof TOKENS | 'nobody'

const PRINCIPALS: Record<string, Principal> = {
  [TOKENS.operator]: {},
  [TOKENS.tenantA]: { scope: { tenant: 'a' } },
  [TOKENS.tenantB]: { scope: { tenant: 'b' } },
  [TOKENS.restricted]: { allowedProfiles: ['default'] },
  [TOKENS.manager]: { canManageProfiles: true },
}

export const PROVIDER_PROFILE: ProfileConfig = {
  name: 'default', engine: 'provider', provider: { id: 'fake', model: 'fake-small', models: ['fake-small', 'fake-large'] },
}
export const ALT_PROFILE: ProfileConfig = {
  name: 'alt', engine: 'provider', provider: { id: 'fake', model: 'fake-large' }, session: { capabilities: ['web_fetch'] },
}
export const PRIMARY_PROFILE: ProfileConfig = { name: 'primary', engine: 'cli_primary' }

export function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization
  return header?.startsWith('Bearer ') ? header.slice(7) : undefined
}

export interface TestGateway {
  gateway: GatewayServer
  url: string
  origin: string
  cwdRoot: string
  request(method: string, path: string, opts?: { who?: Who; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; text: string; headers: Headers }>
  createSession(body?: Record<string, unknown>, who?: Who): Promise<any>
  attach(id: string, opts?: { who?: Who; afterSeq?: number }): Promise<TestSocket>
  close(): Promise<void>
}

export async function startTestGateway(overrides: Partial<GatewayServerOptions> = {}, runner: Partial<AiSdkRunnerOptions> = {}, modelOptions: { scenariosDir?: string } = {}): Promise<TestGateway> {
  const model = await startFakeModelServer({ host: '127.0.0.1', port: 0, ...modelOptions })
  const cwdRoot = await realpath(await mkdtemp(join(tmpdir(), 'gw-test-')))
  const gateway = createGatewayServer({
    authenticate: (req) => PRINCIPALS[bearer(req) ?? ''],
    profiles: [PROVIDER_PROFILE, ALT_PROFILE, PRIMARY_PROFILE],
    createEngineRunner: (ctx) => createAiSdkRunner(ctx, { baseURL: model.baseURL, maxRetries: 0, ...runner }),
    allowedCwdRoots: [cwdRoot],
    onError: () => {},
    ...overrides,
  })
  const { url } = await gateway.listen(0, '127.0.0.1')
  const origin = new URL(url).origin
  const headersFor = (who: Who = 'operator'): Record<string, string> => (who === 'nobody' ? {} : { authorization: `Bearer ${TOKENS[who]}` })
  const harness: TestGateway = {
    gateway,
    url,
    origin,
    cwdRoot,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...headersFor(opts.who), ...opts.headers }
      let body: string | undefined = opts.raw
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body)
        headers['content-type'] = 'application/json'
      }
      const target = path.startsWith('http') ? path : path.startsWith('/v1/') ? `${origin}${path}` : `${url}${path}`
      const res = await fetch(target, { method, headers, body })
      const text = await res.text()
      let parsed: unknown
      try { parsed = text ? JSON.parse(text) : undefined } catch { parsed = undefined }
      return { status: res.status, body: parsed, text, headers: res.headers }
    },
    async createSession(body = {}, who = 'operator') {
      const res = await harness.request('POST', '/sessions', { who, body })
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`)
      return res.body.session
    },
    attach(id, opts = {}) {
      const query = opts.afterSeq === undefined ? '' : `?afterSeq=${opts.afterSeq}`
      return openSocket(`${url.replace(/^http/, 'ws')}/sessions/${id}/ws${query}`, headersFor(opts.who))
    },
    async close() {
      await gateway.close()
      await model.close()
    },
  }
  return harness
}

/** A WS client that keeps every frame, so tests wait for a frame instead of sleeping. */
export class TestSocket {
  readonly frames: SessionServerFrame[] = []
  #waiters: Array<() => void> = []
  readonly ws: WebSocket

  constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()))
      for (const wake of this.#waiters.splice(0)) wake()
    })
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame))
  }

  events(): any[] {
    return this.frames.filter((f) => f.type === 'event').map((f) => (f as { event: unknown }).event)
  }

  async waitFor<T = any>(predicate: (frame: any) => boolean, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = this.frames.find(predicate)
      if (found) return found as T
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`timed out waiting for a frame; got ${JSON.stringify(this.frames.map((f) => f.type === 'event' ? (f as any).event.type : f.type))}`)
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, left)
        this.#waiters.push(() => { clearTimeout(timer); wake() })
      })
    }
  }

  waitForEvent(type: string, extra: (event: any) => boolean = () => true, timeoutMs?: number): Promise<any> {
    return this.waitFor((f) => f.type === 'event' && f.event.type === type && extra(f.event), timeoutMs).then((f: any) => f.event)
  }

  close(): void {
    this.ws.close()
  }
}

export function openSocket(url: string, headers: Record<string, string>): Promise<TestSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    const socket = new TestSocket(ws)
    ws.once('open', () => resolve(socket))
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => { body += c })
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode, body })))
    })
    ws.once('error', reject)
  })
}

/**
 * Polls `read` until `ok` holds. The deadline is a bound on waiting, not a speed claim: generous,
 * so a loaded CI machine still passes. The error shows the last value read.
 */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 15_000): Promise<T> {
  let last: T | undefined
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    last = await read()
    if (ok(last)) return last
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`never reached: ${what}; last ${JSON.stringify(last)}`)
}
