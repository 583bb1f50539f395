/**
 * One path-resolution chokepoint (gateway/host/containment.ts): every route that reads or
 * writes a file canonicalises the whole chain and checks what it opened, and a malformed path is a
 * 4xx. A canary outside every root must never be served.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rename, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../engines/cli-primary/index.ts'
import { startTestGateway, type TestGateway } from './harness.ts'

const FAKE_CLI = {
  pathToClaudeCodeExecutable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
  executable: process.execPath,
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}
const CANARY = 'CANARY-7f3a: this file is outside every root'

const gateways: TestGateway[] = []
afterEach(async () => {
  for (const g of gateways.splice(0)) await g.close()
})

/** A lone surrogate has no UTF-8 form; it goes on the wire as the bytes of one (which decode to U+FFFD). */
function encodeQuery(path: string): string {
  return [...path].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('')
}

async function outsideDir(name = 'notes.md'): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'gw-outside-')))
  await writeFile(join(dir, name), CANARY)
  return dir
}

describe('path chokepoint', () => {
  it('a produced file whose parent directory was swapped for a symlink is 404, never the file behind it', async () => {
    const g = await startTestGateway({ engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLI) }, hostFiles: { write: true } })
    gateways.push(g)
    const session = await g.createSession({ profile: 'primary', cwd: g.cwdRoot })
    const ws = await g.attach(session.id)
    ws.send({ type: 'user_message', text: 'scenario:write-file' })
    const asked = await ws.waitForEvent('permission_requested')
    ws.send({ type: 'permission_decision', requestId: asked.request.requestId, behavior: 'allow' })
    const produced = await ws.waitForEvent('file_produced')
    await ws.waitForEvent('turn_result')
    ws.close()
    expect((await g.request('GET', `/sessions/${session.id}/produced/${produced.fileId}`)).status).toBe(200)
    // The session's cwd (the produced file's parent) becomes a symlink to a directory holding a canary.
    const outside = await outsideDir('notes.md')
    await rename(g.cwdRoot, `${g.cwdRoot}-moved`)
    await symlink(outside, g.cwdRoot)
    const res = await g.request('GET', `/sessions/${session.id}/produced/${produced.fileId}`)
    expect(res.text).not.toContain('CANARY')
    expect(res.status).toBe(404)
    const list = await g.request('GET', `/sessions/${session.id}/produced`)
    expect(list.status).toBe(200)
    expect(list.body.files[0].bytes).toBeUndefined()
  })

  it('malformed paths are 4xx on every /fs route: control characters, lone surrogates, overlong paths and names', async () => {
    const g = await startTestGateway({ hostFiles: { write: true } })
    gateways.push(g)
    const root = g.cwdRoot
    const bad = [`${root}/a\nb`, `${root}/\u0001`, `${root}/x\u007f`, `${root}/\ud800`, `${root}/${'a'.repeat(256)}`, `${root}/${'d/'.repeat(2100)}f`, `${root}/${'é'.repeat(200)}`]
    for (const path of bad) {
      for (const op of ['read', 'list', 'find']) {
        const res = await g.request('GET', `/fs/${op}?path=${encodeQuery(path)}`)
        expect(res.status, `${op} ${JSON.stringify(path.slice(-20))}`).toBeGreaterThanOrEqual(400)
        expect(res.status, `${op} ${JSON.stringify(path.slice(-20))}`).toBeLessThan(500)
        expect(res.body.code).toBeTypeOf('string')
      }
      const write = await g.request('PUT', '/fs/write', { body: { path, content: 'x' } })
      expect(write.status).toBeGreaterThanOrEqual(400)
      expect(write.status).toBeLessThan(500)
    }
  })

  it('a conditional write of a name at the filesystem limit (255 bytes) succeeds, and one byte more is 4xx', async () => {
    const g = await startTestGateway({ hostFiles: { write: true } })
    gateways.push(g)
    const longest = join(g.cwdRoot, 'n'.repeat(255))
    const created = await g.request('PUT', '/fs/write', { body: { path: longest, content: 'first' } })
    expect(created.status).toBe(200)
    const replaced = await g.request('PUT', '/fs/write', { body: { path: longest, content: 'second', expectedHash: created.body.hash } })
    expect(replaced.status).toBe(200)
    expect(await readFile(longest, 'utf8')).toBe('second')
    // No temp file is left behind.
    expect((await readdir(g.cwdRoot)).filter((n) => n.endsWith('.tmp'))).toEqual([])
    const over = await g.request('PUT', '/fs/write', { body: { path: `${longest}n`, content: 'x' } })
    expect(over.status).toBeGreaterThanOrEqual(400)
    expect(over.status).toBeLessThan(500)
  })

  it('read, list and write through a parent swapped for a symlink never reach the canary', async () => {
    const g = await startTestGateway({ hostFiles: { write: true } })
    gateways.push(g)
    await mkdir(join(g.cwdRoot, 'docs'))
    const outside = await outsideDir('notes.md')
    await rename(join(g.cwdRoot, 'docs'), join(g.cwdRoot, 'docs-moved'))
    await symlink(outside, join(g.cwdRoot, 'docs'))
    const read = await g.request('GET', `/fs/read?path=${encodeURIComponent(join(g.cwdRoot, 'docs', 'notes.md'))}`)
    expect(read.status).toBe(404)
    expect(read.text).not.toContain('CANARY')
    const list = await g.request('GET', `/fs/list?path=${encodeURIComponent(join(g.cwdRoot, 'docs'))}`)
    expect(list.status).toBe(404)
    const write = await g.request('PUT', '/fs/write', { body: { path: join(g.cwdRoot, 'docs', 'new.md'), content: 'x' } })
    expect(write.status).toBe(404)
    expect(await readdir(outside)).toEqual(['notes.md'])
  })

  it('GET /sdk-sessions with a malformed dir is a 4xx, never an engine failure', async () => {
    const g = await startTestGateway({ engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLI) } })
    gateways.push(g)
    for (const dir of ['a\u0000b', `${g.cwdRoot}/\u0001`, `/${'x'.repeat(5000)}`, 'relative/dir']) {
      const res = await g.request('GET', `/sdk-sessions?profile=primary&dir=${encodeURIComponent(dir)}`)
      expect(res.status, JSON.stringify(dir.slice(0, 20))).toBeGreaterThanOrEqual(400)
      expect(res.status, JSON.stringify(dir.slice(0, 20))).toBeLessThan(500)
    }
  })
})
