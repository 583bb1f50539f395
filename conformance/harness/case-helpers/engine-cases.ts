/**
 * Case helpers: rules every session has, tried on each engine (conformance/matrix): the session's
 * fields and its event stream over two turns, attachments, and the shapes of the events an engine
 * may emit. One case per engine, so a target without an engine gets `unsupported` for its cells.
 */
import type { Case } from '../../types.ts'
import { Unsupported } from '../../types.ts'
import type { Engine } from '../../matrix/dimensions.ts'
import { STATUSES } from './commands.ts'
import { upload } from './attachments.ts'
import { createBody } from './session-states.ts'

const slug = (engine: Engine) => engine.replace('_', '-')

export const sessionStreamCase = (engine: Engine): Case => ({
  id: `session-and-stream-${slug(engine)}`,
  title: `${engine}: SessionInfo names its profile and engine; the attach, two turns and every event's seq, ts and status; activityCount never decreases`,
  section: 'session',
  clauses: ['session.1', 'session.4', 'events.22', 'event-and-command-envelope.1', 'events.1', 'events.3', 'websocket-framing.1', 'websocket-framing.2', 'sessions.14', 'what-the-service-does.5'],
  requires: [engine],
  async run(ctx) {
    const session = await ctx.createSession(createBody(ctx, engine))
    ctx.check('session.1', typeof session.id === 'string' && STATUSES.includes(session.status), 'an id and a status value', session)
    ctx.equal('session.1', session.profile, ctx.profile(engine), 'profile (the resolved name)')
    // SessionInfo lists `engine` without requiring it: compared when present.
    if ('engine' in session) ctx.equal('what-the-service-does.5', session.engine, engine, 'SessionInfo.engine')
    const ws = await ctx.ws(session.id)
    const attached = await ws.waitFor(() => ws.frames.length > 0, ctx.deadlineMs, 'the first frame')
    ctx.check('websocket-framing.1', attached.type === 'attached' && typeof attached.protocolVersion === 'number', 'an `attached` frame first, with protocolVersion', attached)
    const activity = async () => (await ctx.http('GET', `/sessions/${session.id}`)).json?.session?.activityCount
    const counts = [await activity()]
    for (const text of ['scenario:hello', 'scenario:hello']) {
      const before = ws.events().filter((e) => e.type === 'turn_result').length
      ws.send({ type: 'user_message', text })
      await ws.waitFor(() => ws.events().filter((e) => e.type === 'turn_result').length > before, ctx.deadlineMs, 'the turn_result (bare command frames are taken, websocket-framing.2)')
      counts.push(await activity())
    }
    const events = ws.events()
    const seqs = events.map((e) => e.seq)
    ctx.check('event-and-command-envelope.1', seqs.every((s, i) => Number.isInteger(s) && s >= 1 && (i === 0 || s > seqs[i - 1])), 'integer seqs from 1, increasing', seqs)
    ctx.check('events.1', events.every((e) => typeof e.ts === 'number'), 'every event with a ts (epoch ms)', events.filter((e) => typeof e.ts !== 'number').map((e) => e.type))
    const statuses = events.filter((e) => e.type === 'status_changed').map((e) => e.status)
    ctx.check('events.3', statuses.every((s) => STATUSES.includes(s)), 'status_changed carries a SessionStatus value', statuses)
    // session.1 lists activityCount without requiring it; session.4 says how it moves when it is there.
    if (counts.every((c) => typeof c === 'number')) {
      ctx.check('session.4', counts.every((c, i) => i === 0 || c >= counts[i - 1]), 'activityCount never decreases', counts)
      ctx.check('events.22', counts[2] > counts[0], 'two turns of transcript rows raise activityCount', counts)
    }
  },
})

export const attachmentsCase = (engine: Engine): Case => ({
  id: `attachments-on-${slug(engine)}`,
  title: `${engine}: a text attachment is uploaded, served back and sent as metadata; a media type no engine accepts is a 415`,
  section: 'sessions',
  clauses: ['sessions.7', 'sessions.8', 'sessions.16', 'errors.8', 'messages-and-attachments.1', 'messages-and-attachments.2', 'messages-and-attachments.3'],
  requires: [engine, 'attachments'],
  async run(ctx) {
    const session = await ctx.createSession(createBody(ctx, engine))
    const kinds = session.capabilities?.attachments
    if (Array.isArray(kinds) && !kinds.includes('text')) throw new Unsupported(`the session's capability record accepts no text attachments (${kinds.join(', ')})`)
    const ws = await ctx.ws(session.id)
    const refused = await upload(ctx, session.id, 'PK', 'application/zip', 'kit.zip')
    ctx.errorStatus('errors.8', refused, 415)
    const marker = `marker-${Math.floor(ctx.random() * 1e9)}`
    const up = await upload(ctx, session.id, `the file says ${marker}`, 'text/plain')
    ctx.check('sessions.7', up.status >= 200 && up.status < 300, 'a 2xx for a text upload (sessions.16: text types accepted)', `HTTP ${up.status} ${up.text.slice(0, 160)}`)
    const meta = up.json?.attachment ?? up.json
    ctx.check('sessions.7', typeof meta?.id === 'string', 'an UploadAttachmentResponse containing the attachment id', up.json)
    const back = await ctx.http('GET', `/sessions/${session.id}/attachments/${meta.id}`)
    ctx.equal('sessions.8', back.text, `the file says ${marker}`, 'the bytes served back')
    ws.send({ type: 'user_message', text: 'read the file', attachmentIds: [meta.id] })
    const user = await ws.waitForEvent('user_message', ctx.deadlineMs, (e) => Array.isArray(e.attachments))
    ctx.check('messages-and-attachments.3', user.attachments.some((a: any) => a.id === meta.id), 'the user_message names the attachment by id', user)
    ctx.check('messages-and-attachments.2', !JSON.stringify(ws.events().filter((e) => e.type === 'user_message')).includes(marker), 'no attachment bytes in the user_message', 'the marker inside a user_message')
    await ws.waitForEvent('turn_result', ctx.deadlineMs)
    for (const message of ws.events().filter((e) => e.type === 'assistant_message').map((e) => e.message?.content)) {
      ctx.check('messages-and-attachments.1', typeof message === 'string' || (Array.isArray(message) && message.every((b: any) => typeof b?.type === 'string')), 'an ApiMessage of typed content blocks', message)
    }
  },
})

export const eventShapesCase = (engine: Engine): Case => ({
  id: `event-shapes-${slug(engine)}`,
  title: `${engine}: the events an engine may emit (system_init, capabilities, skills, tool_titles, context_usage, plan_info) carry what the Events table states, when emitted`,
  section: 'events',
  clauses: ['events.2', 'events.4', 'events.7', 'events.9', 'events.15', 'events.16'],
  requires: [engine],
  async run(ctx) {
    const session = await ctx.createSession(createBody(ctx, engine))
    const ws = await ctx.ws(session.id)
    ws.send({ type: 'user_message', text: 'scenario:hello' })
    await ws.waitForEvent('turn_result', ctx.deadlineMs)
    // The Events table lists these without obliging an engine to emit them: each is judged when it comes.
    const of = (type: string) => ws.events().filter((e) => e.type === type)
    for (const init of of('system_init')) {
      ctx.check('events.2', Array.isArray(init.tools), 'system_init.tools, a list', init.tools)
      if (init.apiKeySource !== undefined && init.apiKeySource !== 'oauth') ctx.check('events.9', of('plan_info').length === 0, 'no plan_info for an API-key session', init.apiKeySource)
    }
    for (const caps of of('capabilities')) ctx.check('events.4', Array.isArray(caps.models), 'capabilities.models, a ModelOption[]', caps)
    for (const skills of of('skills')) ctx.check('events.15', Array.isArray(skills.skills), 'SkillInfo[] after init', skills)
    // system_init carries `skills` (events.2) and the skills event follows init (events.15): the two
    // describe one engine's skills, so a skill the event lists right after an init is named by it.
    const nameOf = (s: any) => (typeof s === 'string' ? s : s?.name)
    for (const init of of('system_init').filter((e) => Array.isArray(e.skills))) {
      const next = of('skills').find((e) => e.seq > init.seq && Array.isArray(e.skills))
      const listed = (next?.skills ?? []).map(nameOf).filter((n: unknown) => typeof n === 'string')
      ctx.check('events.2', listed.every((n: string) => init.skills.some((s: any) => nameOf(s) === n)), 'system_init.skills names each skill the skills event after it lists', { init: init.skills, skills: listed })
    }
    for (const titles of of('tool_titles')) ctx.check('events.16', typeof titles.titles === 'object' && titles.titles !== null && Object.values(titles.titles).every((t) => typeof t === 'string' && t.length > 0), 'non-empty labels keyed by wire tool name', titles)
    // context_usage is "polled after each turn": one shows up once the turn ended, when the engine reports usage.
    for (const usage of of('context_usage')) ctx.check('events.7', typeof usage.seq === 'number', 'a context_usage snapshot', usage)
  },
})
