/**
 * `GET /sessions/:id/events/:seq/result?toolUseId=` (protocol 7; websocket-framing.1 leaves the
 * replay's views open): the whole tool_result block a truncated replay cut short, or with `part=N`
 * the bytes of the image an `image_ref` stands for. Read from the session's log, live or parked.
 * `toolUseId` is required and checked against the event, so a stale seq never serves another
 * call's result.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SessionEvent, StoredToolResult } from '../../protocol/index.ts'
import type { Runner } from '../../sessions/runner.ts'
import { base64ImageOf, contentWithImageRefs, toolResultIn } from '../../sessions/tool-result-views.ts'
import { sendJson, sendRefusal, writeDownloadHead } from '../http.ts'
import { METHOD_NOT_ALLOWED, NOT_FOUND, refuse } from '../refusal.ts'

const NO_SUCH_EVENT = refuse('not_found', 'no such event')
const NO_SUCH_RESULT = refuse('not_found', 'no such tool result in that event')

export function serveToolResult(req: IncomingMessage, res: ServerResponse, runner: Runner, rest: string[]): void {
  if (rest.length !== 3 || rest[2] !== 'result' || !/^\d{1,15}$/.test(rest[1])) return sendRefusal(res, NOT_FOUND)
  if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
  const query = new URL(req.url ?? '/', 'http://gateway').searchParams
  const toolUseId = query.get('toolUseId')
  if (!toolUseId) return sendRefusal(res, refuse('invalid_request', 'toolUseId is required'))
  const seq = Number(rest[1])
  const event = eventAt(runner, seq)
  if (!event) return sendRefusal(res, NO_SUCH_EVENT)
  const block = toolResultIn(event, toolUseId)
  if (!block) return sendRefusal(res, NO_SUCH_RESULT)
  const part = query.get('part')
  if (part !== null) {
    const image = /^\d{1,6}$/.test(part) && Array.isArray(block.content) ? base64ImageOf(block.content[Number(part)]) : undefined
    if (!image) return sendRefusal(res, refuse('not_found', 'no such image part in that tool result'))
    const bytes = Buffer.from(image.data, 'base64')
    writeDownloadHead(res, `${toolUseId}-${part}`, image.mediaType, bytes.byteLength)
    return void res.end(bytes)
  }
  const content = query.get('imageRefs') === '1' ? contentWithImageRefs(block.content) : block.content
  const body: StoredToolResult = { seq, toolUseId, content, isError: block.is_error === true }
  sendJson(res, 200, body)
}

/**
 * The logged event numbered `seq`, through the one read every runner has (a replay from seq - 1);
 * events a replay leaves out (transcript content below the latest reset) are not served either.
 */
function eventAt(runner: Runner, seq: number): SessionEvent | undefined {
  let found: SessionEvent | undefined
  const unsubscribe = runner.subscribe((event) => {
    if (!found && event.seq === seq) found = event
  }, seq - 1)
  unsubscribe()
  return found
}
