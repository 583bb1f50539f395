/**
 * Authentication (authentication.1): the Bearer scheme is case-insensitive (RFC 9110 §11.1), an
 * Authorization header too large for Node's parser is a JSON 431 (not an empty 400), and
 * `gateway token create` never records two principals under one id.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { IncomingMessage } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createToken, hashToken, principalsAuthenticator, readPrincipals } from '../config/principals.ts'
import { startTestGateway, type TestGateway } from './harness.ts'
import { runGateway } from './gateway-command.ts'

let dir: string
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'gw-auth-')) })
afterAll(async () => { await rm(dir, { recursive: true, force: true }) })

const asRequest = (authorization: string | undefined) => ({ headers: { authorization } }) as unknown as IncomingMessage

describe('the principals file authenticator', () => {
  it('accepts the Bearer scheme in any case, with one or more spaces, and nothing else', async () => {
    const file = join(dir, 'case.json')
    const token = await createToken(file, { id: 'ops', operator: true })
    const authenticate = principalsAuthenticator(await readPrincipals(file))
    for (const header of [`Bearer ${token}`, `bearer ${token}`, `BEARER ${token}`, `bEaReR  ${token}`]) {
      expect(authenticate(asRequest(header)), header.slice(0, 8)).toMatchObject({ id: 'ops' })
    }
    for (const header of [undefined, token, `Basic ${token}`, `Bearer`, `Bearer `, `Bearertoken${token}`, `Bearer x${token}`]) {
      expect(authenticate(asRequest(header)), String(header).slice(0, 12)).toBeNull()
    }
  })
})

describe('gateway token create with an existing id', { timeout: 60_000 }, () => {
  it('is refused with exit 2 and the file unchanged; --replace revokes the old token and records one entry', async () => {
    const file = join(dir, 'dup.json')
    const first = await runGateway(['token', 'create', '--principals', file, '--id', 'app', '--scope', 'tenant=a'])
    expect(first.code).toBe(0)
    const before = await readFile(file, 'utf8')
    const again = await runGateway(['token', 'create', '--principals', file, '--id', 'app', '--scope', 'tenant=a'])
    expect(again.code).toBe(2)
    expect(again.stdout).toBe('')
    expect(again.stderr).toMatch(/principal 'app' already exists .*--replace/)
    expect(await readFile(file, 'utf8')).toBe(before)

    const replaced = await runGateway(['token', 'create', '--principals', file, '--id', 'app', '--scope', 'tenant=b', '--replace'])
    expect(replaced.code).toBe(0)
    const stored = JSON.parse(await readFile(file, 'utf8'))
    expect(stored.principals).toEqual({ [hashToken(replaced.stdout.trim())]: { id: 'app', scope: { tenant: 'b' } } })
    expect(stored.principals[hashToken(first.stdout.trim())]).toBeUndefined()
  })
})

describe('an oversized Authorization header', () => {
  let gw: TestGateway
  beforeAll(async () => { gw = await startTestGateway() })
  afterAll(async () => { await gw?.close() })

  it('answers 431 with a JSON error body, and the gateway keeps serving', async () => {
    const url = new URL(`${gw.url}/profiles`)
    const answer = await new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
      const req = request(url, { headers: { authorization: `Bearer ${'x'.repeat(64 * 1024)}` } }, (res) => {
        let body = ''
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }))
      })
      req.on('error', reject)
      req.end()
    })
    expect(answer.status).toBe(431)
    expect(answer.type).toMatch(/^application\/json/)
    expect(JSON.parse(answer.body)).toEqual({ error: 'request headers are too large', code: 'headers_too_large' })
    expect((await gw.request('GET', '/profiles')).status).toBe(200)
  })

  it('answers a request line Node cannot parse with a JSON 400', async () => {
    const url = new URL(gw.url)
    const socket = connect(Number(url.port), url.hostname)
    let raw = ''
    socket.on('data', (chunk) => (raw += chunk))
    await new Promise<void>((done) => socket.once('connect', () => done()))
    socket.write('NOT A REQUEST\r\n\r\n')
    await new Promise<void>((done) => socket.once('close', () => done()))
    const [head, body] = raw.split('\r\n\r\n')
    expect(head).toMatch(/^HTTP\/1\.1 400 /)
    expect(head.toLowerCase()).toContain('content-type: application/json')
    expect(JSON.parse(body)).toEqual({ error: 'malformed HTTP request', code: 'invalid_request' })
  })
})
