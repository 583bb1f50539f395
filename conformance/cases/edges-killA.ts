/**
 * Edge cases found by generated mutation testing: what a profile's config snapshot
 * must show from the files the engine loads, and a session that outlives an MCP action the engine
 * refuses.
 */
import { Unsupported, type Case } from '../types.ts'
import type { HttpAnswer } from '../harness/http-client.ts'
import { openCwdSession } from './cwd-session.ts'

/** A value this long cannot turn up in a response by chance, so finding it there is a leak. */
const SECRET_MIN_CHARS = 8

/** A request's status, or what went wrong on the connection (a gateway that went down answers nothing). */
async function answerOf(request: Promise<HttpAnswer>): Promise<{ status?: number; what: string }> {
  try {
    const res = await request
    return { status: res.status, what: `HTTP ${res.status} ${res.text.slice(0, 160)}` }
  } catch (err) {
    return { what: `no answer: ${(err as Error).message}` }
  }
}

export const killAEdgeCases: Case[] = [
  {
    id: 'profile-config-snapshot-env-names', title: 'GET /profiles/:name names the environment variables of the profile\'s settings file, never their values', section: 'profile',
    clauses: ['profile.9', 'profiles.3', 'engine-session-stores-and-host-files.5'], requires: ['cli_primary', 'hostFiles'],
    async run(ctx) {
      // profile.9: the config snapshot shows "settings highlights … environment variable names
      // only, never values". The kit reads the settings file the profile's engine loads
      // (<configDir>/settings.json, through /fs/read) and looks for each of its `env` names in the
      // answer, wherever the (not shown) snapshot layout puts them, and for none of its values.
      const name = ctx.profile('cli_primary')
      const res = await ctx.http('GET', `/profiles/${encodeURIComponent(name)}`)
      ctx.status('profiles.3', res, 200)
      const configDir = res.json?.profile?.configDir ?? res.json?.configDir
      if (typeof configDir !== 'string') throw new Unsupported('the profile answer names no configDir to read its settings from')
      const read = await ctx.http('GET', `/fs/read?path=${encodeURIComponent(`${configDir.replace(/\/$/, '')}/settings.json`)}`)
      if (read.status !== 200 || typeof read.json?.content !== 'string') throw new Unsupported(`the profile's settings.json is not readable through /fs/read (HTTP ${read.status})`)
      const text = read.json.encoding === 'base64' ? Buffer.from(read.json.content, 'base64').toString('utf8') : read.json.content
      let env: Record<string, unknown>
      try {
        const settings = JSON.parse(text)
        env = settings && typeof settings.env === 'object' && settings.env !== null ? settings.env : {}
      } catch {
        throw new Unsupported('the profile\'s settings.json is not JSON')
      }
      const names = Object.keys(env)
      if (names.length === 0) throw new Unsupported('the profile\'s settings.json sets no environment variables')
      const missing = names.filter((n) => !res.text.includes(JSON.stringify(n)))
      ctx.check('profile.9', missing.length === 0, `the config snapshot names the settings file's environment variables (${names.join(', ')})`, missing.length ? `missing: ${missing.join(', ')}; answer: ${res.text.slice(0, 400)}` : 'all named')
      const leaked = names.filter((n) => typeof env[n] === 'string' && (env[n] as string).length >= SECRET_MIN_CHARS && res.text.includes(env[n] as string))
      ctx.check('profile.9', leaked.length === 0, 'no environment variable value in the answer', leaked.length ? `the value of ${leaked.join(', ')} is in the answer` : 'none')
    },
  },
  {
    id: 'cli-primary-mcp-action-unknown-server', title: 'an MCP action on a server the session does not have is answered, and the session and gateway work on', section: 'sessions',
    clauses: ['sessions.10', 'sessions.3', 'commands.1'], requires: ['cli_primary'],
    async run(ctx) {
      // sessions.10 gives POST /mcp/:name one answer (the refreshed list) and no refusal for a
      // name the engine does not know: any status is accepted here. What the kit demands is that
      // the request is answered and leaves the gateway and the session working: the session still
      // lists its servers (sessions.10), runs a turn (commands.1) and reads (sessions.3). A first
      // turn shows the engine is up before the action, without relying on any status event.
      const { session, ws } = await openCwdSession(ctx, 'cli_primary')
      ctx.requireCapability(session, 'mcpServerActions')
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const first = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const unknown = ctx.unique('kit-no-such-server')
      const action = await answerOf(ctx.http('POST', `/sessions/${session.id}/mcp/${unknown}`, { body: { action: 'enable' } }))
      ctx.check('sessions.10', action.status !== undefined, 'an answer to the action (any status)', action.what)
      const listed = await answerOf(ctx.http('GET', `/sessions/${session.id}/mcp`))
      ctx.check('sessions.10', listed.status === 200, 'the gateway still answers, and the session still lists its MCP servers', listed.what)
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const second = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > first.seq).then(() => 'a turn_result', (err: Error) => `none: ${err.message.slice(0, 160)}`)
      ctx.check('commands.1', second === 'a turn_result', 'a second turn runs after the action', second)
      const read = await answerOf(ctx.http('GET', `/sessions/${session.id}`))
      ctx.check('sessions.3', read.status === 200, 'the session still reads', read.what)
    },
  },
]
