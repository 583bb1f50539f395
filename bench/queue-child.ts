/**
 * One worker process of the queue claim-rate bench (both sides as they really run, at
 * their fastest documented settings):
 * - `ours`: the gateway's own JobQueue on PostgresQueueAdapter, running each job as it runs any
 *   (the session started through `startSession`, its start (session id, `sdkSessionId`) and its
 *   end written with the attempt as fence, in one write for a session that ended at once as this
 *   one does, the ends of a moment written together with the claims for their slots, free slots
 *   claimed together, the lapsed-claim check once per heartbeat), with a no-op session
 *   (queue-noop-session.ts) that answers its prompt at once;
 *   `maxConcurrency` = concurrency × processes, the fleet-wide limit graphile-worker's side has,
 *   and a pool of concurrency + 1 connections, as graphile-worker's.
 * - `graphile`: graphile-worker at the settings of its performance page
 *   (https://worker.graphile.org/docs/performance): `concurrentJobs` 24, `maxPoolSize` 25, a local
 *   queue of 500, batched completion (`completeJobBatchDelay` / `failJobBatchDelay` 0), prepared
 *   statements on (`noPreparedStatements: false`), woken by LISTEN like ours; a no-op task.
 * Each connects and listens before it prints `ready`; both are woken by the NOTIFY of the jobs'
 * COMMIT. argv: kind, url, concurrency per process, processes.
 */
import { createInterface } from 'node:readline'
import { run, Logger } from 'graphile-worker'
import { createPostgresQueueAdapter } from '../gateway/queue/postgres-adapter.ts'
import { JobQueue } from '../gateway/queue/job-queue.ts'
import { WebhookDeliverer } from '../gateway/sessions/webhooks.ts'
import { noopSession } from './queue-noop-session.ts'

const [kind, url, concurrencyArg, processesArg] = process.argv.slice(2)
const concurrency = Number(concurrencyArg ?? 24)
const processes = Number(processesArg ?? 1)
const go = new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()))

if (kind === 'ours') {
  const adapter = await createPostgresQueueAdapter({ url, poolSize: concurrency + 1 })
  // BENCH_QUEUE_MAX overrides maxConcurrency, to see how the JobQueue's rate moves with it (README § h).
  const queue = new JobQueue({ adapter, maxConcurrency: Number(process.env.BENCH_QUEUE_MAX ?? concurrency * processes) }, {
    startSession: async () => noopSession(),
    deliverer: new WebhookDeliverer({ attempts: 1, retryDelayMs: 0 }),
    onError: (err, where) => console.error(`${where}: ${(err as Error).message}`),
  })
  void queue
  process.stdout.write('ready\n') // connected and listening; the jobs' COMMIT notifies and the queue pumps
  await go
  await new Promise(() => {}) // the parent kills this process once the database shows no live job
} else {
  const runner = await run({
    connectionString: url, concurrency, maxPoolSize: concurrency + 1, noHandleSignals: true, noPreparedStatements: false,
    logger: new Logger(() => () => {}),
    preset: { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    taskList: { noop: async () => {} },
  })
  process.stdout.write('ready\n') // started and listening for jobs:insert
  await go
  await runner.promise
}
