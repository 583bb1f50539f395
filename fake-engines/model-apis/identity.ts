/**
 * How a fake model API says which fake it is: `GET /fake-model-api` answers `{"api": <name>}`. The
 * conformance kit asks before a run on real engines (manifest `realEngines`), so an address that
 * answers as something else is one preflight line, not cases timing out on a turn that never ran.
 */
import type { ServerResponse } from 'node:http'

export const IDENTITY_PATH = '/fake-model-api'
export type FakeModelApi = 'anthropic-messages' | 'openai-responses'

export function answerIdentity(res: ServerResponse, api: FakeModelApi): void {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ api }))
}
