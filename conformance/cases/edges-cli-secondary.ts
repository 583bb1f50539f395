/**
 * Edge cases on the cli_secondary engine found by reviewing generated mutation survivors:
 * the kit saw cli_primary announce the files it wrote, never cli_secondary.
 */
import { permissionRequestIdOf } from '../harness/permission-request.ts'
import { Unsupported, type Case } from '../types.ts'

export const cliSecondaryEdgeCases: Case[] = [
  {
    id: 'cli-secondary-produced-files', title: 'cli_secondary: a file the engine wrote is announced with file_produced and served by its id (attachment, nosniff)', section: 'sessions',
    clauses: ['events.18', 'sessions.11', 'events.13'], requires: ['cli_secondary'],
    async run(ctx) {
      // events.18: when an engine writes a host file the session announces it (opaque fileId,
      // absolute path), and that announcement is the produced-files route's allowlist
      // (sessions.11). Codex writes files as a patch, which its default mode asks about first.
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      const session = await ctx.createSession({ profile: ctx.profile('cli_secondary'), cwd })
      const ws = await ctx.ws(session.id)
      const name = `kit-codex-${Math.floor(ctx.random() * 1e9)}.md`
      const content = `written by the agent ${name}\n`
      ws.send({ type: 'user_message', text: `scenario:${JSON.stringify({ name: 'codex-write', steps: [{ type: 'produce_file', path: name, content }, { type: 'text', text: 'Wrote it.' }] })}` })
      const first = await ws.waitFor((f) => f.type === 'event' && ['permission_requested', 'file_produced', 'turn_result'].includes(f.event?.type), ctx.deadlineMs, 'permission_requested, file_produced or turn_result')
      if (first.event.type === 'permission_requested') ws.send({ type: 'permission_decision', requestId: permissionRequestIdOf(first.event), behavior: 'allow' })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.13', result.isError === false, 'the allowed write ran to a successful turn', result)
      const produced = ws.events().find((e) => e.type === 'file_produced' && String(e.path).endsWith(`/${name}`))
      ctx.check('events.18', produced !== undefined, `file_produced for ${name}, the file the engine wrote`, ws.events().map((e) => e.type))
      ctx.check('events.18', typeof produced.fileId === 'string' && produced.path.startsWith('/'), 'an opaque fileId and an absolute path', produced)
      const list = await ctx.http('GET', `/sessions/${session.id}/produced`)
      ctx.check('sessions.11', list.json?.files?.some((f: any) => f.fileId === produced.fileId), 'the announced file listed', list.json)
      const file = await ctx.http('GET', `/sessions/${session.id}/produced/${encodeURIComponent(produced.fileId)}`)
      ctx.status('sessions.11', file, 200)
      ctx.check('sessions.11', file.text === content, 'the file\'s bytes', file.text.slice(0, 200))
      ctx.check('sessions.11', /^attachment/.test(file.headers['content-disposition'] ?? '') && file.headers['x-content-type-options'] === 'nosniff', 'attachment disposition and nosniff', file.headers)
    },
  },
]
