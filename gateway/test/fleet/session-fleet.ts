/**
 * A fleet of real `gateway serve` processes on one embedded PostgreSQL, for the session directory
 * tests: one configuration file (the provider engine on a fake model server, the fake Claude CLI,
 * persistLive on the shared store, `fleet` with a short lease), principals for an operator and two
 * tenants, and per process helpers for REST calls and WebSocket attaches.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { startFakeModelServer } from '../../../fake-engines/provider-model/server.ts'
import { hashToken } from '../../config/principals.ts'
import { serveGateway, type ServingGateway } from '../gateway-command.ts'
import { openSocket, type TestSocket } from '../harness.ts'
import { startPostgresServer, type PostgresServer } from '../postgres-server.ts'

export const TOKENS = { operator: 'fleet-operator-token', x: 'fleet-tenant-x-token', y: 'fleet-tenant-y-token' } as const
export type Who = keyof typeof TOKENS
export const FLEET_SECRET = 'fleet-shared-secret-for-tests'
export const LEASE_MS = 1500

export interface FleetProcess {
  gw: ServingGateway
  url: string
  call(method: string, path: string, body?: unknown, who?: Who, headers?: Record<string, string>): Promise<{ status: number; body: any }>
  attach(id: string, afterSeq?: number, who?: Who, headers?: Record<string, string>): Promise<TestSocket>
}

export interface SessionFleet {
  processes: FleetProcess[]
  db: pg.Pool
  work: string
  /** The fake Claude CLI's store (CLAUDE_CONFIG_DIR of the `claude` profile), shared by every process. */
  claudeConfig: string
  start(): Promise<FleetProcess>
  stop(): Promise<void>
}

export async function startSessionFleet(count: number): Promise<SessionFleet> {
  const server: PostgresServer = await startPostgresServer()
  const url = await server.createDatabase('fleet_sessions')
  const model = await startFakeModelServer()
  const dir = await mkdtemp(join(tmpdir(), 'gw-session-fleet-'))
  const work = join(dir, 'work')
  await mkdir(work, { recursive: true })
  const claudeConfig = join(dir, 'claude-config')
  await mkdir(claudeConfig, { recursive: true })
  await writeFile(join(claudeConfig, 'fake-account.json'), JSON.stringify({ apiKeySource: 'ANTHROPIC_API_KEY' }))
  await writeFile(join(dir, 'principals.json'), JSON.stringify({
    version: 1,
    principals: {
      [hashToken(TOKENS.operator)]: { id: 'ops', operator: true },
      [hashToken(TOKENS.x)]: { id: 'tenant-x', scope: { tenant: 'x' } },
      [hashToken(TOKENS.y)]: { id: 'tenant-y', scope: { tenant: 'y' } },
    },
  }))
  const tsx = ['--import', fileURLToPath(import.meta.resolve('tsx'))]
  const file = join(dir, 'gateway.json')
  await writeFile(file, JSON.stringify({
    auth: { principalsFile: 'principals.json' },
    engines: { cli_primary: { executable: fileURLToPath(new URL('../../../fake-engines/claude-cli/main.ts', import.meta.url)), interpreter: process.execPath, interpreterArgs: tsx } },
    profiles: [
      { name: 'default', engine: 'provider', provider: { id: 'openai-compatible', baseURL: model.baseURL, model: 'fake-small' } },
      { name: 'claude', engine: 'cli_primary', configDir: 'claude-config' },
    ],
    allowedCwdRoots: ['work'],
    parking: { store: { kind: 'postgres', urlEnv: 'DATABASE_URL' }, persistLive: true, parkDelayMs: 20 },
    fleet: { secretEnv: 'FLEET_SECRET', leaseMs: LEASE_MS },
    shutdown: { graceMs: 500, killGraceMs: 200 },
  }))
  const env = { ...process.env, DATABASE_URL: url, FLEET_SECRET }
  const db = new pg.Pool({ connectionString: url, max: 2 })
  db.on('error', () => {}) // the server's stop ends idle connections
  const processes: FleetProcess[] = []
  const start = async () => {
    const gw = await serveGateway(file, env)
    const p = fleetProcess(gw)
    processes.push(p)
    return p
  }
  for (let i = 0; i < count; i++) await start()
  return {
    processes, db, work, claudeConfig, start,
    async stop() {
      await Promise.all(processes.map((p) => new Promise<void>((resolve) => {
        if (p.gw.child.exitCode !== null || p.gw.child.signalCode !== null) return resolve()
        p.gw.child.once('exit', () => resolve())
        p.gw.child.kill('SIGKILL')
      })))
      await db.end()
      await model.close()
      await server.stop()
      await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
    },
  }
}

function fleetProcess(gw: ServingGateway): FleetProcess {
  const url = gw.url
  return {
    gw, url,
    async call(method, path, body, who = 'operator', headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method, headers: { authorization: `Bearer ${TOKENS[who]}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: res.status, body: await res.json().catch(() => undefined) }
    },
    attach(id, afterSeq, who = 'operator', headers = {}) {
      const query = afterSeq === undefined ? '' : `?afterSeq=${afterSeq}`
      return openSocket(`${url.replace(/^http/, 'ws')}/sessions/${id}/ws${query}`, { authorization: `Bearer ${TOKENS[who]}`, ...headers })
    },
  }
}

/** The directory row of a session, and the process id of every member by its address. */
export async function directoryRow(db: pg.Pool, id: string): Promise<{ process_id: string; epoch: string } | undefined> {
  return (await db.query('SELECT process_id, epoch FROM gateway_session_directory WHERE session_id = $1', [id])).rows[0]
}

export async function processIdOf(db: pg.Pool, p: FleetProcess): Promise<string> {
  const { rows } = await db.query<{ process_id: string; address: string }>('SELECT process_id, address FROM gateway_fleet_members')
  const found = rows.find((r) => p.url.startsWith(r.address) || r.address.startsWith(p.url))
  if (!found) throw new Error(`no member row for ${p.url}: ${JSON.stringify(rows)}`)
  return found.process_id
}
