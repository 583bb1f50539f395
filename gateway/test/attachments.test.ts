import { request as httpRequest } from 'node:http'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { startTestGateway, type TestGateway } from './harness.ts'

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

async function start(overrides: Record<string, unknown> = {}) {
  const g = await startTestGateway({
    engines: { cli_primary: createCliPrimaryAdapter({
      pathToClaudeCodeExecutable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
      executable: process.execPath, executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
    }) },
    ...overrides,
  })
  gateways.push(g)
  return g
}

const upload = (g: TestGateway, id: string, body: string, type: string, name = 'notes.txt') =>
  g.request('POST', `/sessions/${id}/attachments?name=${encodeURIComponent(name)}`, { raw: body, headers: { 'content-type': type } })

describe('attachments (sessions.7-8, messages-and-attachments.*)', () => {
  it('uploads raw bytes, serves them back by id, and sends them with a message without putting bytes in events', async () => {
    const g = await start()
    const session = await g.createSession({})
    const up = await upload(g, session.id, 'the secret ingredient is basil', 'text/plain; charset=utf-8', '../../etc/notes.txt')
    expect(up.status).toBe(201)
    expect(up.body.attachment).toEqual({ id: expect.any(String), name: 'notes.txt', mediaType: 'text/plain', bytes: 30 })
    const back = await g.request('GET', `/sessions/${session.id}/attachments/${up.body.attachment.id}`)
    expect(back.text).toBe('the secret ingredient is basil')
    expect(back.headers.get('content-disposition')).toMatch(/^attachment;/)
    expect(back.headers.get('x-content-type-options')).toBe('nosniff')
    const ws = await g.attach(session.id)
    ws.send({ type: 'user_message', text: 'what is in the file?', attachmentIds: [up.body.attachment.id] })
    const user = await ws.waitForEvent('user_message')
    expect(user.attachments).toEqual([up.body.attachment])
    expect(JSON.stringify(user)).not.toContain('basil')
    expect((await ws.waitForEvent('turn_result')).result).toContain('the secret ingredient is basil') // the model saw it
    ws.send({ type: 'user_message', text: 'again', attachmentIds: ['nope'] })
    expect((await ws.waitFor((f) => f.type === 'protocol_error')).message).toBe('unknown attachment(s): nope')
  })

  it('takes images for the provider engine, and reaches a cli_primary CLI as content blocks', async () => {
    const g = await start()
    const provider = await g.createSession({})
    const png = await upload(g, provider.id, '\u0089PNG fake', 'image/png', 'pic.png')
    expect(png.status).toBe(201)
    const ws = await g.attach(provider.id)
    ws.send({ type: 'user_message', text: 'look', attachmentIds: [png.body.attachment.id] })
    expect((await ws.waitForEvent('turn_result')).isError).toBe(false)

    const primary = await g.createSession({ profile: 'primary', cwd: g.cwdRoot })
    const txt = await upload(g, primary.id, 'cli sees this', 'text/markdown')
    const cli = await g.attach(primary.id)
    cli.send({ type: 'user_message', text: 'read it', attachmentIds: [txt.body.attachment.id] })
    expect((await cli.waitForEvent('turn_result')).result).toContain('cli sees this')
  })

  it('refuses bad uploads: 415 for a type the engine does not take, 413 per file and per session, 400 without a body or content-type', async () => {
    const g = await start({ attachments: { maxFileBytes: 1000, maxSessionBytes: 1500 } })
    const session = await g.createSession({})
    expect((await upload(g, session.id, 'zip', 'application/zip')).status).toBe(415)
    const big = await upload(g, session.id, 'x'.repeat(1001), 'text/plain')
    expect(big.status).toBe(413)
    expect(big.body.code).toBe('body_too_large')
    expect((await upload(g, session.id, 'x'.repeat(1000), 'text/plain')).status).toBe(201)
    expect((await upload(g, session.id, 'x'.repeat(600), 'text/plain')).status).toBe(413) // the session's total
    expect((await upload(g, session.id, '', 'text/plain')).status).toBe(400)
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${g.url}/sessions/${session.id}/attachments`, { method: 'POST', headers: { authorization: 'Bearer tok-operator' } }, (res) => { res.resume(); resolve(res.statusCode!) })
      req.on('error', reject)
      req.end('no type')
    })
    expect(status).toBe(400)
  })

  it('drops a session\'s attachments with the session', async () => {
    const g = await start()
    const session = await g.createSession({})
    const up = await upload(g, session.id, 'gone soon', 'text/plain')
    await g.request('DELETE', `/sessions/${session.id}`)
    expect(g.gateway.context.attachments.get(session.id, up.body.attachment.id)).toBeUndefined()
  })
})
