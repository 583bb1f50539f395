/**
 * One worker process of the queue claim-rate bench: `ours` claims through PostgresQueueAdapter
 * (with the fleet-wide limit) as a JobQueue slot does: one claim, then each job's completion
 * together with the next claim (`completeAndClaim`, one round trip); `graphile`
 * runs graphile-worker (its defaults: prepared statements, no local queue, no batched completion,
 * so each job is its own get_job and complete_job) with a no-op task. Both one job at a time per
 * process, both with a pool of 2 connections. Each connects and listens before it prints `ready`;
 * both are woken by the NOTIFY of the jobs' COMMIT; `ours` exits when the queue is empty.
 */
import { createInterface } from 'node:readline'
import { run, Logger } from 'graphile-worker'
import { createPostgresQueueAdapter } from '../gateway/queue/postgres-adapter.ts'

const [kind, url] = process.argv.slice(2)
const go = new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()))

if (kind === 'ours') {
  const adapter = await createPostgresQueueAdapter({ url, poolSize: 2 })
  const work = new Promise<void>((resolve) => adapter.onWork!(resolve))
  process.stdout.write('ready\n')
  await go
  await work // the jobs' COMMIT notifies, as it wakes an idle gateway process
  // As the JobQueue's slot does: claim once, then each finished job's final write (the patch
  // JobQueue writes for a succeeded no-op turn) together with the next claim.
  const limits = { maxRunning: 1_000_000 }
  const usage = { tokens: 0, totalCostUsd: 0, numTurns: 1 }
  let job = await adapter.claimNext(Date.now(), limits)
  while (job) {
    const final = {
      result: { subtype: 'success', isError: false, durationMs: 0 }, status: 'succeeded' as const, usage,
      nextRunAt: undefined, parkedAt: undefined, parkedExecutionId: undefined, finishedAt: Date.now(),
    }
    job = (await adapter.completeAndClaim(job.info.id, final, Date.now(), limits)).claimed
  }
  await adapter.close()
  process.exit(0)
} else {
  const runner = await run({
    connectionString: url, concurrency: 1, noHandleSignals: true, pollInterval: 100, maxPoolSize: 2,
    logger: new Logger(() => () => {}),
    taskList: { noop: async () => {} },
  })
  process.stdout.write('ready\n') // started and listening for jobs:insert
  await go
  await runner.promise
}
