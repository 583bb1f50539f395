/** The access log's request id: a caller's valid `x-request-id` is echoed and logged; anything else is replaced. */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { attachAccessLog } from './access-log.ts'
import { createLogger } from './logger.ts'

let server: Server | undefined
afterEach(async () => {
  await new Promise((done) => server?.close(done) ?? done(undefined))
  server = undefined
})

async function start() {
  const stream = new PassThrough()
  const lines: any[] = []
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n').map((l) => JSON.parse(l))))
  server = createServer((_req, res) => res.end('{}'))
  attachAccessLog(server, createLogger({ destination: stream }))
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { origin, lines }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

describe('x-request-id', () => {
  it('echoes and logs a valid client id', async () => {
    const { origin, lines } = await start()
    for (const id of ['req-123', 'f4b0c1d2-aaaa-4bbb-8ccc-123456789abc', '01HZX3K2ABCDEF', 'trace:span.1/2+x=', 'a'.repeat(128)]) {
      const res = await fetch(`${origin}/v1/profiles`, { headers: { 'x-request-id': id } })
      expect(res.headers.get('x-request-id')).toBe(id)
      await res.text()
    }
    await new Promise((r) => setImmediate(r))
    expect(lines.map((l) => l.requestId)).toEqual(['req-123', 'f4b0c1d2-aaaa-4bbb-8ccc-123456789abc', '01HZX3K2ABCDEF', 'trace:span.1/2+x=', 'a'.repeat(128)])
  })

  it('mints a UUID for a missing, too long or ill-formed id, and logs that one', async () => {
    const { origin, lines } = await start()
    const answered: string[] = []
    for (const headers of [{}, { 'x-request-id': 'a'.repeat(129) }, { 'x-request-id': 'two words' }, { 'x-request-id': '"quoted"' }, { 'x-request-id': 'ünïcode' }, { 'x-request-id': '' }]) {
      const res = await fetch(`${origin}/`, { headers: headers as Record<string, string> })
      await res.text()
      answered.push(res.headers.get('x-request-id') ?? '')
    }
    await new Promise((r) => setImmediate(r))
    for (const id of answered) expect(id).toMatch(UUID)
    expect(new Set(answered).size).toBe(answered.length)
    expect(lines.map((l) => l.requestId)).toEqual(answered)
  })
})
