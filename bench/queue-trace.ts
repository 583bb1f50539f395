/**
 * Where one JobQueue job's wall time goes: one process, the bench's no-op
 * session (queue-child.ts), `N` jobs at `maxConcurrency` `MAX`; every statement the pool sends is
 * counted by its name (or first words) with its round-trip time, so the round trips per job and
 * the time between them show. `npx tsx bench/queue-trace.ts [jobs] [maxConcurrency]`
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { createPostgresQueueAdapter } from '../gateway/queue/postgres-adapter.ts'
import { JobQueue } from '../gateway/queue/job-queue.ts'
import { WebhookDeliverer } from '../gateway/sessions/webhooks.ts'
import { startPostgresServer } from '../gateway/test/postgres-server.ts'
import { noopSession } from './queue-noop-session.ts'

const jobs = Number(process.argv[2] ?? 500)
const max = Number(process.argv[3] ?? 1)
const stats = new Map<string, { n: number; ms: number }>()
const original = pg.Client.prototype.query
// Every pool query passes through Client.prototype.query: timed from send to answer.
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const config = args[0]
  const text = typeof config === 'string' ? config : (config as { name?: string; text?: string }).name ?? (config as { text: string }).text
  const key = String(text).replace(/\s+/g, ' ').trim().slice(0, 70)
  const t0 = performance.now()
  const done = () => {
    const s = stats.get(key) ?? { n: 0, ms: 0 }
    s.n++; s.ms += performance.now() - t0
    stats.set(key, s)
  }
  // pg-pool passes a callback; a direct call gets a promise.
  const last = args.length - 1
  if (typeof args[last] === 'function') {
    const cb = args[last] as (...a: unknown[]) => void
    args[last] = (...a: unknown[]) => { done(); cb(...a) }
  }
  const result = (original as (...a: unknown[]) => unknown).apply(this, args)
  if (result && typeof (result as Promise<unknown>).then === 'function') void (result as Promise<unknown>).then(done, () => undefined)
  return result
} as typeof original

const server = await startPostgresServer()
try {
  const url = await server.createDatabase()
  const adapter = await createPostgresQueueAdapter({ url, poolSize: 25 })
  const queue = new JobQueue({ adapter, maxConcurrency: max }, {
    startSession: async () => noopSession(),
    deliverer: new WebhookDeliverer({ attempts: 1, retryDelayMs: 0 }),
    onError: (err, where) => console.error(`${where}: ${(err as Error).message}`),
  })
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  const info = (id: string) => ({ id, status: 'queued', cwd: '', prompt: 'noop', createdAt: Date.now(), attempt: 1, maxAttempts: 1, usage: { tokens: 0, totalCostUsd: 0, numTurns: 0 } })
  const ids = Array.from({ length: jobs }, () => randomUUID())
  stats.clear()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await db.query(`INSERT INTO gateway_jobs (id, info, request) SELECT id, info, '{"session":{"prompt":"noop"}}'::jsonb FROM unnest($1::text[], $2::jsonb[]) AS t(id, info)`, [ids, ids.map((id) => JSON.stringify(info(id)))])
  for (;;) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM gateway_jobs WHERE status IN ('queued', 'running')`)
    if (rows[0].n === 0) break
    await new Promise((r) => setTimeout(r, 5))
  }
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  console.log(`${jobs} jobs at maxConcurrency ${max}: ${(jobs / ms * 1000).toFixed(0)} jobs/s, ${(ms / jobs).toFixed(2)} ms/job wall, ${((cpu.user + cpu.system) / 1000 / jobs).toFixed(2)} ms/job CPU (this process, the poll included)`)
  for (const [key, s] of [...stats].sort((a, b) => b[1].ms - a[1].ms)) {
    if (key.startsWith('SELECT count(*)::int AS n FROM gateway_jobs WHERE status IN')) continue
    console.log(`${(s.n / jobs).toFixed(2).padStart(6)}/job ${(s.ms / s.n).toFixed(2).padStart(7)} ms  ${key}`)
  }
  queue.close()
  await db.end()
  await adapter.close()
} finally {
  await server.stop()
}
