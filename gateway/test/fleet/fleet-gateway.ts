/**
 * One gateway process of a test fleet: the provider engine on its own fake model server, the
 * job queue on PostgresQueueAdapter and parks on PostgresSessionStore, both on the database in
 * `DATABASE_URL`. Prints `{"url": ...}` on its first stdout line once it listens; SIGTERM stops
 * it gracefully. Run as `node --import tsx gateway/test/fleet/fleet-gateway.ts` with
 * `FLEET_OPTIONS` (JSON: workerId, maxConcurrency, leaseMs, token).
 */
import { mkdtemp, realpath } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startFakeModelServer } from '../../../fake-engines/provider-model/server.ts'
import { createAiSdkRunner } from '../../engines/provider/index.ts'
import type { WrittenRecord } from '../../queue/adapter.ts'
import { createPostgresQueueAdapter } from '../../queue/postgres-adapter.ts'
import { createGatewayServer } from '../../server/create-server.ts'
import { createPostgresSessionStore } from '../../sessions/stores/postgres-store.ts'
import { createCliPrimaryAdapter } from '../../engines/cli-primary/index.ts'
import { createCliSecondaryAdapter } from '../../engines/cli-secondary/index.ts'
import { createSessionDirectory } from '../../fleet/directory.ts'
import { FAKE_CLAUDE_CLI_NODE_ARGS, FAKE_CLAUDE_CLI_PATH } from '../../../fake-engines/claude-cli/index.ts'
import { FAKE_CODEX } from '../fake-codex.ts'

export interface FleetGatewayOptions {
  workerId: string
  maxConcurrency: number
  leaseMs: number
  token: string
  /** The deferred tools' deadlines: deferred_task and deferred_short (default 10 min each). */
  deferredExpiresInMs?: number
  shortDeadlineMs?: number
  maxParkedDurationMs?: number
  /** Parking's boot grace before lapsed deadlines fire (default 60 s), and its fleet sweep's period. */
  expiredGraceMs?: number
  deadlineSweepMs?: number
  /** A webhook attempt's timeout (the outbox's delivery claims last this plus 5 s). */
  webhookTimeoutMs?: number
  /**
   * Test hooks: this process SIGKILLs itself right after it claims the first
   * attempt of a job whose prompt contains `dieAfterClaim` (the claim committed, nothing after
   * it ran), or right after it claims the delivery of that job's `dieAfterDeliveryClaim` event.
   */
  dieAfterClaim?: string
  dieAfterDeliveryClaim?: { prompt: string; type: string }
  /**
   * Test hook: every delete of a stored session takes this long, so what a resume does
   * after its rebuild and before it is done (the park record's delete) spans the timers due then.
   */
  slowSessionDeleteMs?: number
  /**
   * Interactive sessions too (fleet-sessions.ts): the fleet option (this process's id is its
   * worker id; the directory's lease is the queue's), `persistLive`, and the fake CLIs as
   * profiles `primary` and `codex`, their config directories and cwds under `shared` (one
   * directory every process reads, as a shared volume would be).
   */
  sessions?: { secret: string; shared: string }
}

const url = process.env.DATABASE_URL
if (!url) throw new Error('DATABASE_URL is not set')
const options = JSON.parse(process.env.FLEET_OPTIONS ?? '{}') as FleetGatewayOptions

const model = await startFakeModelServer({ host: '127.0.0.1', port: 0 })
const cwdRoot = await realpath(await mkdtemp(join(tmpdir(), 'gw-fleet-')))
// The database's own trouble (idle connections the server ended, a read tried again) goes to stderr too.
const report = (where: string) => (err: Error) => process.stderr.write(`[${options.workerId}] ${where}: ${err.message}\n`)
const adapter = await createPostgresQueueAdapter({ url, workerId: options.workerId, leaseMs: options.leaseMs, poolSize: 6, onError: report('queue database') })
if (options.dieAfterClaim) {
  const marker = options.dieAfterClaim
  const dieFor = (record: WrittenRecord | undefined) => {
    if (record && record.info.attempt === 1 && record.request.session.prompt.includes(marker)) process.kill(process.pid, 'SIGKILL')
    return record
  }
  const claimNext = adapter.claimNext
  const completeAndClaim = adapter.completeAndClaim
  const claimBatch = adapter.claimBatch
  adapter.claimNext = async (...args) => dieFor(await claimNext(...args))
  // Every way the queue claims (several free slots are claimed in one step).
  adapter.claimBatch = async (...args) => {
    const claimed = await claimBatch(...args)
    for (const record of claimed) dieFor(record)
    return claimed
  }
  adapter.completeAndClaim = async (...args) => {
    const done = await completeAndClaim(...args)
    dieFor(done.claimed)
    return done
  }
}
if (options.dieAfterDeliveryClaim) {
  const { prompt, type } = options.dieAfterDeliveryClaim
  const claimOutbox = adapter.claimOutbox!
  adapter.claimOutbox = async (...args) => {
    const entries = await claimOutbox(...args)
    if (entries.some((e) => e.event.type === type && e.event.job.prompt.includes(prompt))) process.kill(process.pid, 'SIGKILL')
    return entries
  }
}
const store = await createPostgresSessionStore({ url, poolSize: 3, onError: report('session store database') })
if (options.slowSessionDeleteMs) {
  const ms = options.slowSessionDeleteMs
  const remove = store.delete.bind(store)
  store.delete = async (id) => {
    await new Promise((r) => setTimeout(r, ms))
    return remove(id)
  }
}
const sessions = options.sessions
const directory = sessions ? await createSessionDirectory({ url, processId: options.workerId, leaseMs: options.leaseMs, onError: (err) => report('fleet directory')(err as Error) }) : undefined
const gateway = createGatewayServer({
  authenticate: (req) => (req.headers.authorization === `Bearer ${options.token}` ? {} : undefined),
  profiles: [
    { name: 'default', engine: 'provider', provider: { id: 'fake', model: 'fake-small' } },
    ...(sessions ? [{ name: 'primary', engine: 'cli_primary' as const, configDir: join(sessions.shared, 'claude') }, { name: 'codex', engine: 'cli_secondary' as const, codexHome: join(sessions.shared, 'codex') }] : []),
  ],
  ...(sessions ? {
    engines: {
      cli_primary: createCliPrimaryAdapter({ pathToClaudeCodeExecutable: FAKE_CLAUDE_CLI_PATH, executable: process.execPath, executableArgs: FAKE_CLAUDE_CLI_NODE_ARGS }),
      cli_secondary: createCliSecondaryAdapter(FAKE_CODEX),
    },
    fleet: {
      directory: directory!, secret: sessions.secret,
      // One line per adoption, for the soak's "no session adopted twice" (fleet-session-checks.ts).
      onAdopted: (e: { sessionId: string; from: string; epoch: number }) => process.stderr.write(`[${options.workerId}] fleet: adopted session ${e.sessionId} of process ${e.from} (epoch ${e.epoch})\n`),
    },
  } : {}),
  createEngineRunner: (ctx) => createAiSdkRunner(ctx, {
    baseURL: model.baseURL, maxRetries: 0,
    deferredTools: {
      deferred_task: { description: 'A task an outside system completes', expiresInMs: options.deferredExpiresInMs ?? 10 * 60_000 },
      deferred_short: { description: 'A task whose deadline is short', expiresInMs: options.shortDeadlineMs ?? 10 * 60_000 },
    },
  }),
  allowedCwdRoots: sessions ? [cwdRoot, sessions.shared] : [cwdRoot],
  parking: {
    store, parkDelayMs: 20, ...(sessions ? { persistLive: true } : {}),
    ...(options.expiredGraceMs !== undefined ? { expiredGraceMs: options.expiredGraceMs } : {}),
    ...(options.deadlineSweepMs !== undefined ? { deadlineSweepMs: options.deadlineSweepMs } : {}),
  },
  queue: {
    adapter, maxConcurrency: options.maxConcurrency,
    ...(options.maxParkedDurationMs !== undefined ? { maxParkedDurationMs: options.maxParkedDurationMs } : {}),
    webhookRetryDelayMs: 20, webhookAttempts: 5, killGraceMs: 200,
    ...(options.webhookTimeoutMs !== undefined ? { webhookTimeoutMs: options.webhookTimeoutMs } : {}),
  },
  onError: (err, where) => process.stderr.write(`[${options.workerId}] ${where}: ${(err as Error)?.message ?? err}\n`),
})
const listening = await gateway.listen(0, '127.0.0.1')
process.stdout.write(JSON.stringify({ url: listening.url }) + '\n')

process.once('SIGTERM', async () => {
  await gateway.close()
  await adapter.close()
  await store.close()
  await model.close()
  process.exit(0)
})
