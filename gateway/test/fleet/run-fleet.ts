/**
 * The multi-process run (issue 15): a real PostgreSQL, N gateway child processes on it, a real
 * webhook receiver on 127.0.0.1, jobs submitted round-robin through the processes with mixed
 * outcomes (succeed; fail and retry; park on a deferred tool, resumed by a result posted to a
 * random live process), and one process SIGKILLed while it holds claims. Every rule is checked
 * from the database's transition history (gateway_job_history), not from logs:
 * - each job ends in exactly one terminal state and nothing moves it afterwards;
 * - a running job changes hands (running -> running) only away from the killed process;
 * - the number of jobs running at once across the fleet never exceeds maxConcurrency;
 * - each job's webhooks arrive in the order they were emitted, job_completed last and once.
 * Returns the figures and the list of violations (empty when all hold).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { startPostgresServer } from '../postgres-server.ts'
import type { FleetGatewayOptions } from './fleet-gateway.ts'

export interface FleetRunOptions {
  jobs: number
  processes?: number
  maxConcurrency?: number
  leaseMs?: number
  /** SIGKILL one process holding a claim once this fraction of jobs is terminal (default 0.4). */
  killAt?: number
  timeoutMs?: number
  log?: (line: string) => void
}

export interface FleetReport {
  jobs: number
  processes: number
  durationMs: number
  maxConcurrency: number
  peakRunning: number
  byStatus: Record<string, number>
  reclaimed: number
  parked: number
  resumedElsewhere: number
  killedWorker: string | undefined
  violations: string[]
}

const CHILD = fileURLToPath(new URL('./fleet-gateway.ts', import.meta.url))
const TERMINAL = new Set(['succeeded', 'failed', 'canceled'])
const SUCCEED = `scenario:${JSON.stringify({ name: 'work', steps: [{ type: 'sleep', ms: 60 }, { type: 'text', text: 'done' }, { type: 'usage', input: 3, output: 2 }] })}`

export interface Member { workerId: string; url: string; child: ChildProcess; alive: boolean }

function jobBody(i: number, hook: string): Record<string, unknown> {
  const webhook = { url: hook }
  switch (i % 3) {
    case 0: return { session: { prompt: SUCCEED }, attempts: 2, retryDelayMs: 1000, webhook }
    case 1: return { session: { prompt: 'scenario:model-error' }, attempts: 2, retryDelayMs: 1000, webhook }
    default: return { session: { prompt: 'scenario:deferred' }, attempts: 2, retryDelayMs: 1000, webhook }
  }
}

export async function startMember(dbUrl: string, options: FleetGatewayOptions): Promise<Member> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, DATABASE_URL: dbUrl, FLEET_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (b) => {
    stderr = (stderr + b).slice(-4000)
    if (process.env.FLEET_DEBUG) process.stderr.write(b)
  })
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! })
    rl.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`fleet gateway ${options.workerId} exited ${code}: ${stderr}`)))
  })
  return { workerId: options.workerId, url: JSON.parse(line).url, child, alive: true }
}

export async function runFleet(options: FleetRunOptions): Promise<FleetReport> {
  const processes = options.processes ?? 4
  const maxConcurrency = options.maxConcurrency ?? 4
  const leaseMs = options.leaseMs ?? 3000
  const log = options.log ?? (() => {})
  const token = randomBytes(12).toString('hex')
  const violations: string[] = []
  const server = await startPostgresServer()
  let receiver: Server | undefined
  const members: Member[] = []
  try {
    const dbUrl = await server.createDatabase('fleet')
    // Webhooks per job, in arrival order; a parked job's result goes to a random live process.
    const events = new Map<string, Array<{ type: string; ts: number }>>()
    const answered = new Set<string>()
    const postResult = async (executionId: string) => {
      if (answered.has(executionId)) return
      answered.add(executionId)
      const deadline = Date.now() + 20_000
      while (Date.now() < deadline) {
        const live = members.filter((m) => m.alive)
        const target = live[Math.floor(Math.random() * live.length)]
        try {
          const res = await fetch(`${target.url}/executions/${executionId}/result`, {
            method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ status: 'ok', output: { type: 'text', value: 'approved' } }),
          })
          if (process.env.FLEET_DEBUG) console.error(`result ${executionId} -> ${target.workerId}: ${res.status} ${await res.clone().text()}`)
          if (res.status === 200) return
        } catch { /* that process just died: try another */ }
        // 404 until the park is stored (job_parked is sent before the snapshot lands).
        await new Promise((r) => setTimeout(r, 50))
      }
      violations.push(`execution ${executionId}: no process accepted its result`)
    }
    receiver = createServer((req, res) => {
      let text = ''
      req.on('data', (c) => { text += c })
      req.on('end', () => {
        res.end()
        const event = JSON.parse(text)
        const list = events.get(event.jobId) ?? []
        list.push({ type: event.type, ts: event.ts })
        events.set(event.jobId, list)
        if (event.type === 'job_parked') void postResult(event.executionId)
      })
    })
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r))
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

    members.push(...await Promise.all(Array.from({ length: processes }, (_, i) =>
      startMember(dbUrl, { workerId: `p${i + 1}`, maxConcurrency, leaseMs, token }))))
    const fleetDb = new pg.Client({ connectionString: dbUrl })
    await fleetDb.connect()
    log(`${processes} gateway processes up; submitting ${options.jobs} jobs`)

    const started = Date.now()
    const ids: string[] = []
    let next = 0
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < options.jobs) {
        const i = next++
        const member = members.filter((m) => m.alive)[i % members.filter((m) => m.alive).length]
        const res = await fetch(`${member.url}/jobs`, {
          method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(jobBody(i, hook)),
        })
        if (res.status !== 201) throw new Error(`submit through ${member.workerId}: ${res.status} ${await res.text()}`)
        ids.push(((await res.json()) as { job: { id: string } }).job.id)
      }
    }))
    log(`submitted ${ids.length} jobs in ${Date.now() - started} ms`)

    const killAt = Math.floor((options.killAt ?? 0.4) * options.jobs)
    let killed: Member | undefined
    let lastPoll = 0
    const deadline = Date.now() + (options.timeoutMs ?? 300_000)
    for (;;) {
      const { rows } = await fleetDb.query<{ terminal: string }>(`SELECT count(*) FILTER (WHERE status IN ('succeeded','failed','canceled')) AS terminal FROM gateway_jobs`)
      const terminal = Number(rows[0].terminal)
      if (!killed && terminal >= killAt) {
        // The victim is a process holding at least one claim right now.
        const holders = await fleetDb.query<{ lease_owner: string }>(`SELECT lease_owner FROM gateway_jobs WHERE status = 'running' GROUP BY lease_owner ORDER BY count(*) DESC`)
        const victim = members.find((m) => m.workerId === holders.rows[0]?.lease_owner && m.alive)
        if (victim) {
          victim.child.kill('SIGKILL')
          if (process.env.FLEET_DEBUG) console.error(`KILLED ${victim.workerId}`)
          victim.alive = false
          killed = victim
          log(`SIGKILL ${victim.workerId} at ${terminal} terminal jobs`)
        }
      }
      if (terminal >= ids.length) break
      // As an outside system does when a webhook may have been lost (its sender died): poll the
      // jobs through a live process and answer any parked execution not heard of yet.
      if (killed && Date.now() - lastPoll > 2000) {
        lastPoll = Date.now()
        const live = members.find((m) => m.alive)!
        const res = await fetch(`${live.url}/jobs`, { headers: { authorization: `Bearer ${token}` } })
        const { jobs } = (await res.json()) as { jobs: Array<{ status: string; parkedExecutionId?: string }> }
        for (const j of jobs) if (j.status === 'parked' && j.parkedExecutionId) void postResult(j.parkedExecutionId)
      }
      if (Date.now() > deadline) {
        const stuck = await fleetDb.query(`SELECT j.id, j.status, j.lease_owner, j.info->>'parkedExecutionId' AS execution, (SELECT string_agg(coalesce(h.from_status, '-') || '>' || h.to_status || '@' || coalesce(h.worker, '-'), ' ' ORDER BY h.id) FROM gateway_job_history h WHERE h.job_id = j.id) AS history
          FROM gateway_jobs j WHERE status NOT IN ('succeeded','failed','canceled') LIMIT 5`)
        violations.push(`timed out with ${ids.length - terminal} jobs not terminal: ${JSON.stringify(stuck.rows)}`)
        break
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    const durationMs = Date.now() - started

    // History checks.
    const { rows: history } = await fleetDb.query<{ id: string; job_id: string; from_status: string | null; to_status: string; worker: string | null }>(
      'SELECT id, job_id, from_status, to_status, worker FROM gateway_job_history ORDER BY id')
    let running = 0
    let peakRunning = 0
    let reclaimed = 0
    let resumedElsewhere = 0
    let parked = 0
    const perJob = new Map<string, typeof history>()
    for (const row of history) {
      if (row.to_status === 'running' && row.from_status !== 'running') running++
      if (row.from_status === 'running' && row.to_status !== 'running') running--
      peakRunning = Math.max(peakRunning, running)
      if (running > maxConcurrency && process.env.FLEET_DEBUG) console.error('OVER', JSON.stringify(history.filter((h) => Number(h.id) <= Number(row.id)).slice(-12)))
      const list = perJob.get(row.job_id) ?? []
      list.push(row)
      perJob.set(row.job_id, list)
    }
    if (peakRunning > maxConcurrency) violations.push(`fleet-wide running peaked at ${peakRunning} > maxConcurrency ${maxConcurrency}`)
    const byStatus: Record<string, number> = {}
    for (const id of ids) {
      const rows = perJob.get(id) ?? []
      const terminal = rows.filter((r) => TERMINAL.has(r.to_status))
      const last = rows.at(-1)
      byStatus[last?.to_status ?? 'missing'] = (byStatus[last?.to_status ?? 'missing'] ?? 0) + 1
      if (terminal.length !== 1 || !TERMINAL.has(last?.to_status ?? '')) violations.push(`job ${id}: terminal transitions ${terminal.length}, last ${last?.to_status}`)
      rows.forEach((r, i) => {
        if (r.to_status === 'parked') parked++
        if (r.from_status === 'parked' && r.to_status === 'running' && r.worker !== rows[i - 1]?.worker) resumedElsewhere++
        if (r.from_status !== 'running' || r.to_status !== 'running') return
        reclaimed++
        const previous = rows[i - 1]?.worker
        if (previous !== killed?.workerId) violations.push(`job ${id}: taken from live worker ${previous} by ${r.worker}`)
      })
      // Webhooks: emission order (ts) kept on arrival, one job_completed, last.
      const got = events.get(id) ?? []
      const completedBy = [...rows].reverse().find((r) => TERMINAL.has(r.to_status))?.worker
      for (let k = 1; k < got.length; k++) if (got[k].ts < got[k - 1].ts) violations.push(`job ${id}: webhook ${got[k].type} arrived after a later ${got[k - 1].type}`)
      const completed = got.filter((e) => e.type === 'job_completed').length
      if (completed > 1) violations.push(`job ${id}: ${completed} job_completed webhooks`)
      if (completed === 1 && got.at(-1)?.type !== 'job_completed') violations.push(`job ${id}: a webhook after job_completed`)
      if (completed === 0 && completedBy !== killed?.workerId) {
        // Delivered by a live process: give the in-flight delivery a moment.
        await new Promise((r) => setTimeout(r, 200))
        if (!(events.get(id) ?? []).some((e) => e.type === 'job_completed')) violations.push(`job ${id}: no job_completed webhook from live worker ${completedBy}`)
      }
    }
    await fleetDb.end()
    return { jobs: ids.length, processes, durationMs, maxConcurrency, peakRunning, byStatus, reclaimed, parked, resumedElsewhere, killedWorker: killed?.workerId, violations }
  } finally {
    await Promise.all(members.filter((m) => m.alive).map((m) => new Promise<void>((resolve) => {
      const timer = setTimeout(() => m.child.kill('SIGKILL'), 5000)
      m.child.once('exit', () => { clearTimeout(timer); resolve() })
      m.child.kill('SIGTERM')
    })))
    receiver?.closeAllConnections()
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()))
    await server.stop()
  }
}
