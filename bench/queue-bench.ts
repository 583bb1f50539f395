/**
 * (h) Jobs claimed and completed per second on one PostgreSQL, with 1 and 4 worker processes: the
 * gateway's JobQueue on PostgresQueueAdapter, running each job as it runs any (fenced writes, a
 * no-op session), against graphile-worker at its documented fastest settings doing the same no-op
 * jobs on the same server in the same run (queue-child.ts). Every worker connects and waits idle (listening, as each queue does);
 * then the jobs are inserted in one transaction and the clock starts at its COMMIT, whose NOTIFY
 * wakes both kinds of worker alike, and runs until the database shows the last job done. So
 * neither side's startup is timed, and both start from the same notification.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { makeWorkerUtils } from 'graphile-worker'
import { createPostgresQueueAdapter } from '../gateway/queue/postgres-adapter.ts'
import { startPostgresServer } from '../gateway/test/postgres-server.ts'
import { pairedRow, type BenchRow } from './stats.ts'

const CHILD = fileURLToPath(new URL('./queue-child.ts', import.meta.url))
const JOBS = 4000
const ROUNDS = 5
/** Jobs at once per worker process, both sides: graphile-worker's performance page runs 24. */
const CONCURRENCY = 24

async function workers(kind: 'ours' | 'graphile', url: string, count: number): Promise<ChildProcess[]> {
  return Promise.all(Array.from({ length: count }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, kind, url, String(CONCURRENCY), String(count)], { stdio: ['pipe', 'pipe', 'inherit'] })
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', () => resolve())
      child.once('exit', (code) => reject(new Error(`${kind} worker exited ${code} before it was ready`)))
    })
    return child
  }))
}

/** Inserts the jobs in one transaction; the clock starts at its COMMIT (which notifies the workers). */
async function timeUntilDone(db: pg.Client, insert: () => Promise<unknown>, remainingSql: string, children: ChildProcess[]): Promise<number> {
  await db.query('BEGIN')
  await insert()
  for (const child of children) child.stdin!.write('go\n')
  const started = performance.now()
  await db.query('COMMIT')
  // Polled every 10 ms: one job left is enough to know (each side reads only its live jobs'
  // index or table, so the poll costs both sides the same few µs instead of a scan of every row).
  for (;;) {
    const { rows } = await db.query<{ n: string }>(remainingSql)
    if (Number(rows[0].n) === 0) break
    await new Promise((r) => setTimeout(r, 10))
  }
  const ms = performance.now() - started
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  return ms
}

export async function ours(url: string, processes: number): Promise<number> {
  const setup = await createPostgresQueueAdapter({ url }) // migrates
  await setup.close()
  const children = await workers('ours', url, processes)
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    const info = (id: string) => ({ id, status: 'queued', cwd: '', prompt: 'noop', createdAt: Date.now(), attempt: 1, maxAttempts: 1, usage: { tokens: 0, totalCostUsd: 0, numTurns: 0 } })
    const ids = Array.from({ length: JOBS }, () => randomUUID())
    const ms = await timeUntilDone(db, () => db.query(`INSERT INTO gateway_jobs (id, info, request) SELECT id, info, '{"session":{"prompt":"noop"}}'::jsonb FROM unnest($1::text[], $2::jsonb[]) AS t(id, info)`,
      [ids, ids.map((id) => JSON.stringify(info(id)))]), `SELECT (EXISTS (SELECT 1 FROM gateway_jobs WHERE status = 'queued') OR EXISTS (SELECT 1 FROM gateway_jobs WHERE status = 'running'))::int AS n`, children)
    return (JOBS / ms) * 1000
  } finally {
    await db.end()
  }
}

export async function graphile(url: string, processes: number): Promise<number> {
  const utils = await makeWorkerUtils({ connectionString: url })
  await utils.migrate()
  await utils.release()
  const children = await workers('graphile', url, processes)
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    // graphile-worker's own add_jobs (what its addJobs sends), here inside our timed transaction.
    const specs = JSON.stringify(Array.from({ length: JOBS }, (_, i) => ({ identifier: 'noop', payload: { i } })))
    const ms = await timeUntilDone(db, () => db.query(`SELECT 1 FROM graphile_worker.add_jobs(array(SELECT json_populate_recordset(null::graphile_worker.job_spec, $1::json)), false)`, [specs]),
      'SELECT count(*) AS n FROM (SELECT 1 FROM graphile_worker._private_jobs LIMIT 1) t', children)
    return (JOBS / ms) * 1000
  } finally {
    await db.end()
  }
}

export async function benchQueue(): Promise<BenchRow[]> {
  const server = await startPostgresServer()
  try {
    const rows: BenchRow[] = []
    for (const processes of [1, 4]) {
      // Each side on a fresh database of the same server, alternating graphile-worker and ours
      // ROUNDS times; the ratio is the median of the per-round ratios (pairedRow), so a burst of
      // load from other work on the machine lands on one round instead of one side.
      const baselines: number[] = []
      const values: number[] = []
      for (let round = 0; round < ROUNDS; round++) {
        // Which side goes first alternates round by round.
        if (round % 2) values.push(await ours(await server.createDatabase(), processes))
        baselines.push(await graphile(await server.createDatabase(), processes))
        if (!(round % 2)) values.push(await ours(await server.createDatabase(), processes))
      }
      rows.push(pairedRow(`PostgreSQL queue: jobs run/s by the JobQueue vs graphile-worker at its fastest, ${processes} process${processes > 1 ? 'es' : ''} × ${CONCURRENCY} (median of ${ROUNDS})`, 'jobs/s', values, baselines, 'higher', 1.2))
    }
    return rows
  } finally {
    await server.stop()
  }
}
