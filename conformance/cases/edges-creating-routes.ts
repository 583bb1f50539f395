/**
 * Refusals on every route that creates a session, and containment at the root's own boundary
 * (classes of plausible bugs the kit missed). A session is created by POST /sessions and
 * by POST /jobs (its `session` follows the session-creation rules, other-shapes.4); a rule checked
 * on one of them only lets a gateway that forgot it on the other pass. And a root checked with
 * `../` and symlinks but not with a sibling that shares its name as a prefix (`/srv/root-x` next to
 * `/srv/root`) lets a string-prefix containment test pass.
 */
import type { CaseContext } from '../harness/context.ts'
import type { HttpAnswer } from '../harness/http-client.ts'
import { Unsupported, type Case } from '../types.ts'
import { requireRunningQueue } from './jobs.ts'

function cwdRoot(ctx: CaseContext): string {
  const root = ctx.manifest.cwdRoot
  if (!root) throw new Unsupported('the manifest gives no cwdRoot')
  return root.replace(/\/+$/, '')
}

/** POST /jobs; a job the gateway wrongly accepted is cancelled so it runs no turn after the case. */
async function postJob(ctx: CaseContext, session: Record<string, unknown>): Promise<HttpAnswer> {
  const res = await ctx.http('POST', '/jobs', { body: { session } })
  const id = res.json?.job?.id
  if (typeof id === 'string') ctx.onCleanup(() => ctx.http('DELETE', `/jobs/${encodeURIComponent(id)}`))
  return res
}

/**
 * A cwd outside every root is 403 (server-configuration.4). A sibling path need not exist, and a
 * gateway that checks existence before containment refuses it as bad input: both refuse, and
 * which of the two rows comes first the spec does not rank.
 */
function outsideRefused(ctx: CaseContext, res: HttpAnswer, what: string): void {
  ctx.refusal('server-configuration.4', res, { allowed: [403, 400], protocol7: 403, why: `${what} resolves outside allowedCwdRoots` })
}

export const creatingRouteCases: Case[] = [
  {
    id: 'create-cwd-sibling-of-root-refused', title: 'a cwd that shares the root\'s name as a prefix (root-x beside root) is outside the root', section: 'server-configuration',
    clauses: ['server-configuration.4', 'errors.5'], requires: ['cli_primary'],
    async run(ctx) {
      const root = cwdRoot(ctx)
      const profile = ctx.profile('cli_primary')
      for (const cwd of [`${root}-x`, `${root}x/inner`]) {
        const res = await ctx.http('POST', '/sessions', { body: { profile, cwd } })
        if (res.status === 201 && typeof res.json?.session?.id === 'string') ctx.onCleanup(() => ctx.http('DELETE', `/sessions/${res.json.session.id}`))
        outsideRefused(ctx, res, `POST /sessions cwd ${cwd}`)
      }
      // The root itself is inside it: the boundary is not outside.
      const inside = await ctx.http('POST', '/sessions', { body: { profile, cwd: root } })
      if (typeof inside.json?.session?.id === 'string') ctx.onCleanup(() => ctx.http('DELETE', `/sessions/${inside.json.session.id}`))
      ctx.status('server-configuration.4', inside, 201)
      const listed = await ctx.http('GET', `/sdk-sessions?profile=${encodeURIComponent(profile)}&dir=${encodeURIComponent(`${root}-x`)}`)
      ctx.refusal('server-configuration.4', listed, { protocol7: 403, why: '/sdk-sessions dir beside the root, not inside it' })
    },
  },
  {
    id: 'jobs-create-cwd-outside-roots-403', title: 'POST /jobs refuses a session.cwd outside allowedCwdRoots, as POST /sessions does', section: 'server-configuration',
    clauses: ['server-configuration.4', 'errors.5', 'other-shapes.4'], requires: ['cli_primary', 'queue'],
    async run(ctx) {
      const root = cwdRoot(ctx)
      await requireRunningQueue(ctx)
      const profile = ctx.profile('cli_primary')
      ctx.errorStatus('server-configuration.4', await postJob(ctx, { profile, cwd: '/', prompt: 'hello' }), 403)
      ctx.errorStatus('server-configuration.4', await postJob(ctx, { profile, cwd: `${root}/../..`, prompt: 'hello' }), 403)
      outsideRefused(ctx, await postJob(ctx, { profile, cwd: `${root}-x`, prompt: 'hello' }), `POST /jobs session.cwd ${root}-x`)
    },
  },
  {
    id: 'jobs-create-bad-session-400', title: 'POST /jobs refuses what POST /sessions refuses as bad input: a permission mode outside the record, mcpServers on a provider session', section: 'jobs-and-queue',
    clauses: ['errors.4', 'other-shapes.4', 'createsessionrequest.3'], requires: ['provider', 'queue'],
    async run(ctx) {
      await requireRunningQueue(ctx)
      const profile = ctx.profile('provider')
      ctx.errorStatus('errors.4', await postJob(ctx, { profile, prompt: 'hello', permissionMode: 'no-such-mode' }), 400)
      ctx.errorStatus('errors.4', await postJob(ctx, { profile, prompt: 'hello', mcpServers: { x: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } }), 400)
    },
  },
  {
    id: 'jobs-create-bypass-disabled-403', title: 'POST /jobs refuses a bypassPermissions session when bypass is disabled, as POST /sessions does', section: 'server-configuration',
    clauses: ['server-configuration.16', 'errors.5', 'other-shapes.4'], requires: ['provider', 'queue', 'bypassDisabled'],
    async run(ctx) {
      await requireRunningQueue(ctx)
      ctx.errorStatus('server-configuration.16', await postJob(ctx, { profile: ctx.profile('provider'), prompt: 'hello', permissionMode: 'bypassPermissions' }), 403)
    },
  },
  {
    id: 'host-files-sibling-of-root-refused', title: 'a host file beside the root, named with the root\'s name as a prefix, is outside it: no write, no read, no listing', section: 'engine-session-stores-and-host-files',
    clauses: ['server-configuration.8', 'engine-session-stores-and-host-files.6', 'engine-session-stores-and-host-files.3'], requires: ['hostFiles', 'hostFilesWrite'],
    async run(ctx) {
      const root = cwdRoot(ctx)
      // Its parent directory exists (the root's own parent), so only containment can refuse it.
      const beside = `${root}-${ctx.unique('kit-beside')}.txt`
      ctx.refusal('server-configuration.8', await ctx.http('PUT', '/fs/write', { body: { path: beside, content: 'outside' } }), { protocol7: 404, why: `${beside} is beside the root, not inside it` })
      ctx.refusal('server-configuration.8', await ctx.http('GET', `/fs/read?path=${encodeURIComponent(beside)}`), { protocol7: 404 })
      ctx.refusal('server-configuration.8', await ctx.http('GET', `/fs/list?path=${encodeURIComponent(`${root}-x`)}`), { protocol7: 404 })
    },
  },
]
