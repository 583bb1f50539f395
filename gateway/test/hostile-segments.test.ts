/**
 * A hostile path segment on any route family is a 4xx with the `{error, code}`
 * body (errors.16's shape as this gateway answers it), never a 500. The issue found
 * `GET /sessions/:id/files/%00` and a 1,100-character `files/` path answering 500; every family is
 * swept with the same segments so the next such route is found here, not by an operator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestGateway, type TestGateway } from './harness.ts'

let gw: TestGateway
let sessionId: string
beforeAll(async () => {
  gw = await startTestGateway({ queue: {}, hostFiles: { write: true } })
  sessionId = (await gw.createSession({})).id
})
afterAll(async () => { await gw?.close() })

const HOSTILE = ['%00', 'a%00b', 'x'.repeat(1100), `${'d/'.repeat(600)}f`, '%FF', '%C0%AF', '%2e%2e', '..%2F..%2Fetc', '%0d%0aX-Injected:%201', '%E2%80%AE', '%EF%BF%BF', ' ', '%20', '~', "'", '%22%3E']

function expectClientError(what: string, status: number, text: string): void {
  expect(status, `${what} answered ${status}: ${text.slice(0, 200)}`).toBeLessThan(500)
  if (status >= 400) {
    const body = JSON.parse(text)
    expect(typeof body.error, what).toBe('string')
    expect(typeof body.code, what).toBe('string')
  }
}

describe('hostile path segments on every route family', { timeout: 60_000 }, () => {
  it('GET /sessions/:id/files/%00 is a 400 with a JSON body, not a 500', async () => {
    const res = await gw.request('GET', `/sessions/${sessionId}/files/%00`)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 'invalid_request' })
  })

  it('a files/ path of 1,100 characters is a 400 with a JSON body, not a 500', async () => {
    const res = await gw.request('GET', `/sessions/${sessionId}/files/${'p'.repeat(1100)}`)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ code: 'invalid_request' })
  })

  it('every family answers every hostile segment with a 4xx JSON body or a 2xx', async () => {
    const templates = [
      (s: string) => `/sessions/${s}`,
      (s: string) => `/sessions/${sessionId}/${s}`,
      (s: string) => `/sessions/${sessionId}/files/${s}`,
      (s: string) => `/sessions/${sessionId}/files/dir/${s}`,
      (s: string) => `/sessions/${sessionId}/attachments/${s}`,
      (s: string) => `/sessions/${sessionId}/produced/${s}`,
      (s: string) => `/sessions/${sessionId}/permissions/${s}`,
      (s: string) => `/sessions/${sessionId}/mcp/${s}`,
      (s: string) => `/sessions/${sessionId}/project/${s}`,
      (s: string) => `/profiles/${s}`,
      (s: string) => `/executions/${s}`,
      (s: string) => `/executions/${s}/result`,
      (s: string) => `/sdk-sessions?profile=${s}&dir=${s}`,
      (s: string) => `/fs/${s}`,
      (s: string) => `/fs/read?path=${s}`,
      (s: string) => `/fs/list?path=${s}`,
      (s: string) => `/fs/find?path=${s}&q=${s}`,
      (s: string) => `/jobs/${s}`,
      (s: string) => `/queue/${s}`,
      (s: string) => `/${s}`,
    ]
    for (const template of templates) {
      for (const segment of HOSTILE) {
        for (const method of ['GET', 'POST', 'DELETE']) {
          // `%2e%2e` is a dot segment to the URL parser, so a DELETE through it can close the session itself.
          if ((await gw.request('GET', `/sessions/${sessionId}`)).status !== 200) sessionId = (await gw.createSession({})).id
          const path = template(segment)
          const res = await gw.request(method, path, method === 'POST' ? { raw: '{}', headers: { 'content-type': 'application/json' } } : {})
          expectClientError(`${method} ${path.slice(0, 120)}`, res.status, res.text)
        }
      }
    }
  })
})
