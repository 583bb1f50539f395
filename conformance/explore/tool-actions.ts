/**
 * Explore commands whose turns run tools: a bridged tool the recorder (the first attached client)
 * answers or fails (websocket-framing.3, commands tool_call_result / tool_call_error), and a
 * scratch file written by the sandbox and handed over with deliver_file, then fetched where
 * file_delivered says (events.17, sessions.6). Every execution event of the stream is checked
 * for its correlation (invariants.ts, events.14).
 */
import { inline } from '../harness/case-helpers/index.ts'
import { onSession } from './command.ts'
import { alive } from './model.ts'
import { playTurn } from './world.ts'

export function bridgedTool(pick: number, answer: 'result' | 'error') {
  return onSession(pick, (i) => `bridged tool(s${i}, client answers with tool_call_${answer})`, (m, i) => alive(m, i) && m.sessions[i].role === 'provider', async (m, w, index) => {
    const h = w.handle(index)
    await playTurn(w, h, 'scenario:bridge', async (from) => {
      const request = await h.recorder.waitFor((f) => f.type === 'tool_call_request' && h.recorder.frames.indexOf(f) >= from, w.deadlineMs, 'tool_call_request')
      h.recorder.send(answer === 'result' ? { type: 'tool_call_result', executionId: request.executionId, result: 42 } : { type: 'tool_call_error', executionId: request.executionId, error: 'explore' })
    })
    m.sessions[index].firstPrompt ??= 'scenario:bridge'
  })
}

const DELIVERED = 'explore/out.md'
/** Written from the sandbox, then handed over as {path, content}: a tool that writes and one that hands over an existing file both deliver it. */
const WRITE_AND_DELIVER = inline('explore-deliver', [
  { type: 'tool', name: 'eval_script', input: { code: `fs.write(${JSON.stringify(DELIVERED)}, "# explore"); "written"` } },
  { type: 'deliver_file', path: DELIVERED, content: '# explore' },
  { type: 'text', text: 'delivered' },
])

export function deliverFile(pick: number) {
  return onSession(pick, (i) => `deliver_file(s${i})`, (m, i) => alive(m, i) && m.sessions[i].role === 'provider', async (m, w, index) => {
    const h = w.handle(index)
    const from = h.recorder.frames.length
    await playTurn(w, h, WRITE_AND_DELIVER)
    m.sessions[index].firstPrompt ??= WRITE_AND_DELIVER
    const delivered = h.recorder.frames.slice(from).filter((f) => f.type === 'event' && f.event.type === 'file_delivered').map((f) => f.event)
    for (const e of delivered) {
      const path = String(e.path).replace(/^\/+/, '')
      const res = await w.ctx.http('GET', `/sessions/${h.id}/files/${path.split('/').map(encodeURIComponent).join('/')}`, { as: h.owner })
      w.ctx.check('events.17', res.status === 200, `the file file_delivered names (${e.path}) served under /sessions/:id/files/`, `HTTP ${res.status}`)
    }
  })
}
