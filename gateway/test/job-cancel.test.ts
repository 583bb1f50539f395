/**
 * job-status.12: `DELETE /jobs/:id` cancels a job whatever its phase: queued, claimed with its
 * session still starting, running, awaiting a permission, parked. On every engine where the phase
 * exists (fake model server, fake Claude CLI, fake codex) and on the in-memory and the PostgreSQL
 * queue, the DELETE answers the job canceled, and the run does not go on: its session is closed
 * and the job's one job_completed is the cancel's.
 *
 * The claimed-and-starting phase is held open by the host's `buildRunnerConfig` hook, which the
 * session factory awaits before it builds the engine: a job asking for it (meta.holdStart) waits
 * there until the test releases it, so the cancel lands between the claim and the start.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { createCliSecondaryAdapter } from '../engines/cli-secondary/index.ts'
import type { JobEvent } from '../protocol/index.ts'
import { createPostgresQueueAdapter } from '../queue/postgres-adapter.ts'
import { createPostgresSessionStore } from '../sessions/stores/postgres-store.ts'
import { FAKE_CLAUDE } from './fake-claude.ts'
import { FAKE_CODEX } from './fake-codex.ts'
import { PROVIDER_PROFILE, startTestGateway, until, type TestGateway } from './harness.ts'
import { usePostgres } from './postgres-fixture.ts'

const postgres = usePostgres()

interface EngineCase {
  profile: string
  /** A prompt whose turn waits on a permission, where the engine asks for one. */
  permission?: string
  /** Whether a turn can park (a deferred tool: the provider engine's). */
  parks?: boolean
}

const ENGINES: Record<string, EngineCase> = {
  provider: { profile: 'default', parks: true },
  cli_primary: { profile: 'primary', permission: 'scenario:permission-write' },
  cli_secondary: { profile: 'codex', permission: 'scenario:permission' },
}

interface Rig {
  g: TestGateway
  events: JobEvent[]
  /** Jobs held between their claim and their session's start, by id: call to let the start go on. */
  held: Map<string, () => void>
}

const cleanups: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined)
})

async function rig(backend: 'memory' | 'postgres'): Promise<Rig> {
  const homes = await mkdtemp(join(tmpdir(), 'gw-cancel-'))
  cleanups.push(() => rm(homes, { recursive: true, force: true }))
  await mkdir(join(homes, 'claude'))
  await mkdir(join(homes, 'codex'))
  const url = backend === 'postgres' ? await postgres.database() : undefined
  const adapter = url ? postgres.track(await createPostgresQueueAdapter({ url, poolSize: 4 })) : undefined
  const store = url ? postgres.track(await createPostgresSessionStore({ url })) : undefined
  const held = new Map<string, () => void>()
  const g = await startTestGateway({
    engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLAUDE), cli_secondary: createCliSecondaryAdapter(FAKE_CODEX) },
    profiles: [PROVIDER_PROFILE, { name: 'primary', engine: 'cli_primary', configDir: join(homes, 'claude') }, { name: 'codex', engine: 'cli_secondary', codexHome: join(homes, 'codex') }],
    // One slot: a job held while it starts keeps the next one queued.
    queue: { maxConcurrency: 1, ...(adapter ? { adapter } : {}) },
    parking: { parkDelayMs: 20, ...(store ? { store } : {}) },
    buildRunnerConfig: async (config) => {
      const meta = config.meta as Record<string, unknown> | undefined
      if (meta?.holdStart === true && typeof meta.jobId === 'string') {
        const jobId = meta.jobId
        await new Promise<void>((release) => held.set(jobId, release))
      }
      return config
    },
  }, { deferredTools: { deferred_task: { expiresInMs: 60_000 } } })
  cleanups.push(() => g.close())
  const events: JobEvent[] = []
  g.gateway.context.queue!.subscribe((event) => events.push(event))
  return { g, events, held }
}

async function submit(g: TestGateway, profile: string, prompt: string, meta?: Record<string, unknown>): Promise<string> {
  const res = await g.request('POST', '/jobs', { body: { session: { profile, cwd: g.cwdRoot, prompt }, ...(meta ? { meta } : {}) } })
  expect(res.status, res.text).toBe(201)
  return res.body.job.id
}

const job = async (g: TestGateway, id: string) => (await g.request('GET', `/jobs/${id}`)).body.job

/** The job's session, found by the jobId its meta carries (a job canceled while starting records none). */
async function sessionOf(g: TestGateway, jobId: string): Promise<any> {
  const sessions = (await g.request('GET', '/sessions')).body.sessions as any[]
  return sessions.find((s) => s.meta?.jobId === jobId)
}

/** DELETE answers the job canceled; its session (if it got one) closes; it ends once, canceled. */
async function cancelAndCheck(r: Rig, id: string, phase: string): Promise<void> {
  const res = await r.g.request('DELETE', `/jobs/${id}`)
  expect({ phase, status: res.status, job: res.body?.job?.status }).toEqual({ phase, status: 200, job: 'canceled' })
  r.held.get(id)?.()
  await until(() => sessionOf(r.g, id), (s) => s === undefined || s.status === 'closed', `${phase}: the job's session closed`)
  expect({ phase, job: (await job(r.g, id)).status }).toEqual({ phase, job: 'canceled' })
}

/** Every job ended exactly once, canceled; those canceled before their start never started. */
function expectEndedOnceCanceled(r: Rig, ids: string[], neverStarted: string[]): void {
  for (const id of ids) {
    const completed = r.events.filter((e) => e.jobId === id && e.type === 'job_completed')
    expect({ id, ends: completed.map((e) => e.job.status) }).toEqual({ id, ends: ['canceled'] })
  }
  for (const id of neverStarted) expect(r.events.filter((e) => e.jobId === id && e.type === 'job_started')).toEqual([])
}

describe.each(['memory', 'postgres'] as const)('a cancel ends the job whatever its phase (job-status.12), %s queue', (backend) => {
  it.each(Object.keys(ENGINES))('on %s: queued, starting, running, awaiting a permission, parked', async (engine) => {
    const { profile, permission, parks } = ENGINES[engine]
    const r = await rig(backend)
    const { g } = r
    // Claimed and starting: held before its engine is built, so the next job stays queued.
    const starting = await submit(g, profile, 'scenario:hello', { holdStart: true })
    await until(async () => r.held.has(starting), (held) => held, 'the first job claimed and starting')
    const queued = await submit(g, profile, 'scenario:hello')
    expect((await job(g, queued)).status).toBe('queued')
    await cancelAndCheck(r, queued, 'queued')
    await cancelAndCheck(r, starting, 'claimed, session starting')
    const ids = [queued, starting]

    const running = await submit(g, profile, 'scenario:hang')
    await until(async () => (await sessionOf(g, running))?.status, (s) => s === 'running', 'the hanging job running')
    await cancelAndCheck(r, running, 'running')
    ids.push(running)

    if (permission) {
      const asking = await submit(g, profile, permission)
      await until(async () => (await sessionOf(g, asking))?.status, (s) => s === 'awaiting_approval', 'the job awaiting a permission')
      await cancelAndCheck(r, asking, 'awaiting a permission')
      ids.push(asking)
    }
    if (parks) {
      const parked = await submit(g, profile, 'scenario:deferred')
      await until(() => job(g, parked), (j) => j.status === 'parked', 'the job parked')
      await cancelAndCheck(r, parked, 'parked')
      ids.push(parked)
    }
    expectEndedOnceCanceled(r, ids, [queued, starting])
  }, 120_000)
})
