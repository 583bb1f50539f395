/**
 * Explore commands on the surfaces around a session: attachments (an accepted type is stored and
 * served back, one the engine does not accept is 415, a deleted session's route is 404) and CORS
 * (an allowed origin echoed without credentials, any other origin — a suffix of it included —
 * never allowed; authentication.7).
 */
import { command, onSession } from './command.ts'

/** A type no engine's record accepts (the spec lists images, PDFs and text). */
const UNACCEPTED = 'application/zip'

export function attachment(pick: number, accepted: boolean) {
  return onSession(pick, (i) => `upload attachment(s${i}, ${accepted ? 'text/plain' : UNACCEPTED})`, () => true, async (m, w, index) => {
    const h = w.handle(index)
    const body = `explore attachment ${index}`
    const res = await w.ctx.http('POST', `/sessions/${h.id}/attachments?name=explore.txt`, { as: h.owner, raw: body, headers: { 'content-type': accepted ? 'text/plain' : UNACCEPTED } })
    if (m.sessions[index].deleted) return w.ctx.errorStatus('sessions.5', res, 404)
    if (!accepted) return w.ctx.errorStatus('errors.8', res, 415)
    const kinds = h.info.capabilities?.attachments
    if (Array.isArray(kinds) && !kinds.includes('text')) return w.ctx.errorStatus('errors.8', res, 415)
    w.ctx.created('sessions.7', res, 201)
    const meta = res.json?.attachment ?? res.json
    w.ctx.check('sessions.7', typeof meta?.id === 'string', 'an UploadAttachmentResponse containing the attachment id', res.text.slice(0, 200))
    const back = await w.ctx.http('GET', `/sessions/${h.id}/attachments/${encodeURIComponent(meta.id)}`, { as: h.owner })
    w.ctx.equal('sessions.8', back.text, body, 'the bytes served back')
  })
}

export type OriginKind = 'allowed' | 'suffix' | 'other'

export function corsRequest(kind: OriginKind, preflight: boolean) {
  return command(`${preflight ? 'CORS preflight' : 'GET /sessions'} from the ${kind} origin`, () => true, async (_m, w) => {
    const allowed = w.ctx.manifest.cors!.allowedOrigin!
    const origin = kind === 'allowed' ? allowed : kind === 'suffix' ? `${allowed}.evil.example` : 'http://not-allowed.example'
    const res = preflight
      ? await w.ctx.http('OPTIONS', '/sessions', { as: 'none', headers: { origin, 'access-control-request-method': 'POST' } })
      : await w.ctx.http('GET', '/sessions', { headers: { origin } })
    const echoed = res.headers['access-control-allow-origin']
    if (kind === 'allowed') w.ctx.equal('authentication.7', echoed, origin, 'access-control-allow-origin')
    else w.ctx.check('authentication.7', echoed === undefined, `no access-control-allow-origin for ${origin} (an exact-origin allowlist)`, echoed)
    w.ctx.check('authentication.7', res.headers['access-control-allow-credentials'] === undefined, 'no Access-Control-Allow-Credentials', res.headers['access-control-allow-credentials'])
  })
}
