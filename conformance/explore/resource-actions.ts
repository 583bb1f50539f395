/**
 * Explore commands on sessions as REST resources and on re-attach: rename (PATCH title string or
 * null), read, delete, re-attach with afterSeq. Their answers are checked against the model: title
 * precedence, 404 once deleted, replay equal to the live stream.
 */
import { STATUSES } from '../harness/case-helpers/index.ts'
import { WsRefused } from '../harness/ws-client.ts'
import { onSession } from './command.ts'
import { checkReplay } from './invariants.ts'
import { expectedTitle, titleMatches, type ModelSession } from './model.ts'
import { liveEvents, type SessionHandle, type World } from './world.ts'

function checkTitle(w: World, s: ModelSession, title: unknown, where: string): void {
  const rule = expectedTitle(s)
  const clause = rule.kind === 'meta' || rule.not !== undefined ? 'updatesessionrequest.1' : 'session.2'
  const says = rule.kind === 'meta' ? `title "${rule.title}" (meta.title wins)` : rule.kind === 'derived' ? `a title derived from the first prompt "${rule.prompt}"${rule.not ? `, not the cleared "${rule.not}"` : ''}` : `no title set${rule.not ? `: not the cleared "${rule.not}"` : ''}`
  w.ctx.check(clause, titleMatches(rule, title), `${where}: ${says}`, title === undefined ? 'no title' : title)
}

export function rename(pick: number, title: string | null) {
  return onSession(pick, (i) => `rename(s${i}, ${JSON.stringify(title)})`, () => true, async (m, w, index) => {
    const h = w.handle(index)
    const s = m.sessions[index]
    const res = await w.ctx.http('PATCH', `/sessions/${h.id}`, { as: h.owner, body: { title } })
    if (s.deleted) return w.ctx.errorStatus('errors.3', res, 404)
    w.ctx.status('sessions.4', res, 200)
    if (title === null) {
      if (s.metaTitle !== undefined) s.clearedTitle = s.metaTitle
      s.metaTitle = undefined
    } else {
      s.metaTitle = title
      s.clearedTitle = undefined
    }
    checkTitle(w, s, res.json?.session?.title, 'the PATCH answer')
  })
}

export function read(pick: number) {
  return onSession(pick, (i) => `read(s${i})`, () => true, async (m, w, index) => {
    const h = w.handle(index)
    const s = m.sessions[index]
    const res = await w.ctx.http('GET', `/sessions/${h.id}`, { as: h.owner })
    if (s.deleted) return w.ctx.errorStatus('sessions.5', res, 404)
    w.ctx.status('sessions.3', res, 200)
    const info = res.json?.session
    w.ctx.equal('sessions.3', info?.id, h.id, 'session.id')
    w.ctx.check('session-status-values.1', STATUSES.includes(info?.status), `a status in ${STATUSES.join(', ')}`, info?.status)
    checkTitle(w, s, info?.title, 'GET /sessions/:id')
  })
}

export function remove(pick: number) {
  return onSession(pick, (i) => `delete(s${i})`, () => true, async (m, w, index) => {
    const h = w.handle(index)
    const s = m.sessions[index]
    const res = await w.ctx.http('DELETE', `/sessions/${h.id}`, { as: h.owner })
    if (s.deleted) return w.ctx.errorStatus('errors.3', res, 404)
    w.ctx.check('sessions.5', res.status >= 200 && res.status < 300, 'a 2xx', `HTTP ${res.status} ${res.text.slice(0, 200)}`)
    await h.recorder.waitForEvent('session_closed', w.deadlineMs)
    s.deleted = true
    w.ctx.errorStatus('sessions.5', await w.ctx.http('GET', `/sessions/${h.id}`, { as: h.owner }), 404)
  })
}

/** Which afterSeq a re-attach names: 0, the middle of the live stream, or its last seq. */
export type AfterSeqPick = 'zero' | 'middle' | 'last'

export function reattach(pick: number, after: AfterSeqPick) {
  return onSession(pick, (i) => `reattach(s${i}, afterSeq=${after})`, () => true, async (m, w, index) => {
    const h = w.handle(index)
    const live = liveEvents(h)
    const afterSeq = after === 'zero' ? 0 : after === 'last' ? (live.at(-1)?.seq ?? 0) : (live[Math.floor(live.length / 2)]?.seq ?? 0)
    if (m.sessions[index].deleted) {
      const refused = await w.ctx.ws(h.id, { as: h.owner, afterSeq }).then((c) => (c.close(), undefined), (err) => err)
      return w.ctx.check('sessions.5', refused instanceof WsRefused && refused.status === 404, 'an attach to a deleted session refused with 404', refused instanceof WsRefused ? refused.status : 'attached')
    }
    await checkReattach(w, h, afterSeq)
  })
}

/** Re-attaches after `afterSeq` and compares the replay with the session's live stream (checkReplay). */
export async function checkReattach(w: World, h: SessionHandle, afterSeq: number): Promise<void> {
  const upTo = liveEvents(h).at(-1)?.seq ?? 0
  const again = await w.ctx.ws(h.id, { as: h.owner, afterSeq })
  try {
    // The replay is sent before any command is answered: the answer to a bad frame marks its end.
    again.send('not a command')
    const marker = await again.waitFor((f) => f.type === 'protocol_error', w.deadlineMs, 'a protocol_error after the replay')
    const replayed = again.frames.slice(0, again.frames.indexOf(marker)).filter((f) => f.type === 'event').map((f) => f.event)
    // The live stream may still be receiving what the replay already holds (a late context_usage).
    const top = Math.max(0, ...replayed.map((e) => e.seq))
    if (top > upTo) await h.recorder.waitFor((f) => f.type === 'event' && f.event.seq >= top, w.deadlineMs, `the live stream reaching seq ${top}`).catch(() => undefined)
    checkReplay(w.ctx, liveEvents(h), replayed, afterSeq, Math.max(upTo, top))
  } finally {
    again.close()
  }
}
