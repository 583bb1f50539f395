/**
 * The fleet run's waits: until every job is terminal in the database (injecting the planned
 * faults on each poll), then until every job's webhooks have arrived whole.
 */
import type pg from 'pg'
import type { FleetFaults } from './fleet-faults.ts'
import type { WebhookReceiver } from './fleet-observers.ts'
import { checkJobStream } from './webhook-stream.ts'

/**
 * Polls the terminal count every 100 ms, stepping the faults with it. Past `timeoutMs` the
 * jobs still open (up to 5, with their histories) are a violation.
 */
export async function waitForTerminal(db: pg.Pool, faults: FleetFaults, jobs: number, timeoutMs: number, violations: string[]): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const { rows } = await db.query<{ terminal: string }>(`SELECT count(*) FILTER (WHERE status IN ('succeeded','failed','canceled')) AS terminal FROM gateway_jobs`)
    const terminal = Number(rows[0].terminal)
    await faults.step(terminal)
    // Results are posted only on job_parked webhooks: no poll makes up for a lost one.
    if (terminal >= jobs) return
    if (Date.now() > deadline) {
      const stuck = await db.query(`SELECT j.id, j.status, j.lease_owner, j.info->>'parkedExecutionId' AS execution, (SELECT string_agg(coalesce(h.from_status, '-') || '>' || h.to_status || '@' || coalesce(h.worker, '-'), ' ' ORDER BY h.id) FROM gateway_job_history h WHERE h.job_id = j.id) AS history
        FROM gateway_jobs j WHERE status NOT IN ('succeeded','failed','canceled') LIMIT 5`)
      violations.push(`timed out with ${jobs - terminal} jobs not terminal: ${JSON.stringify(stuck.rows)}`)
      return
    }
    await new Promise((r) => setTimeout(r, 100))
  }
}

/**
 * Every job's webhooks, whoever recorded them: the last ones may wait for a dead or stalled
 * deliverer's claim to lapse (WEBHOOK_TIMEOUT_MS + 5 s) and the next heartbeat. At most 30 s;
 * what is still missing then is the verdict's to report.
 */
export async function waitForWebhooks(ids: string[], receiver: WebhookReceiver): Promise<void> {
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline && !ids.every((id) => checkJobStream(id, receiver.events.get(id) ?? []).complete)) await new Promise((r) => setTimeout(r, 200))
}
