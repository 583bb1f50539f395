/**
 * Filesystem attack corpus: traversal spellings, encodings, control characters,
 * overlong names, symlinked files and parents, a FIFO, and a parent swapped for a symlink while
 * requests race it, over every route that takes a path (/fs/*, /sdk-sessions dir, create cwd, the
 * project icon). A canary outside every root must never be read, listed or written; no answer is a
 * 5xx; nothing hangs.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, realpath, rename, symlink, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCliPrimaryAdapter } from '../../engines/cli-primary/index.ts'
import { startTestGateway, type TestGateway } from '../harness.ts'
import { announce, scaled } from './scale.ts'

const RACE_REQUESTS = scaled(300, 5000)
const CANARY_NAME = 'canary-91c2.txt'
const CANARY = 'CANARY-91c2 secret bytes outside every root'
const FAKE_CLI = {
  pathToClaudeCodeExecutable: fileURLToPath(new URL('../../../fake-engines/claude-cli/main.ts', import.meta.url)),
  executable: process.execPath,
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}

let gw: TestGateway
let root: string
let outside: string
beforeAll(async () => {
  gw = await startTestGateway({ hostFiles: { write: true }, engines: { cli_primary: createCliPrimaryAdapter(FAKE_CLI) } })
  root = gw.cwdRoot
  outside = await realpath(await mkdtemp(join(tmpdir(), 'gw-canary-')))
  await writeFile(join(outside, CANARY_NAME), CANARY)
  await writeFile(join(outside, 'icon.png'), CANARY)
  await mkdir(join(root, 'sub'))
  await writeFile(join(root, 'sub', 'inside.txt'), 'inside')
  await symlink(join(outside, CANARY_NAME), join(root, 'link-file'))
  await symlink(outside, join(root, 'link-dir'))
  await mkdir(join(root, 'swap'))
  await writeFile(join(root, 'swap', 'twin.txt'), 'harmless file inside the root')
  execFileSync('mkfifo', [join(root, 'fifo')])
  // A project config whose icon tries to leave the project root through a link.
  await writeFile(join(root, '.gateway.json'), JSON.stringify({ name: 'attack', icon: 'link-dir/icon.png' }))
})
afterAll(async () => { await gw?.close() })

function corpus(): string[] {
  const o = outside.split('/').pop()!
  const traversal = [
    `${root}/../${o}/${CANARY_NAME}`, `${root}/sub/../../${o}/${CANARY_NAME}`, `${root}/./../${o}`, `${root}//..//${o}//${CANARY_NAME}`,
    `${root}/%2e%2e/${o}/${CANARY_NAME}`, `${root}/..%2f${o}%2f${CANARY_NAME}`, `${root}/%252e%252e/${o}`, `${root}/..\\${o}\\${CANARY_NAME}`,
    `${root}/\uff0e\uff0e/${o}/${CANARY_NAME}`, `${root}/\u2025/${o}`, `${outside}/${CANARY_NAME}`, outside, `/proc/self/root${outside}/${CANARY_NAME}`,
    `/proc/self/cwd/../${o}`, `${root}/link-file`, `${root}/link-dir`, `${root}/link-dir/${CANARY_NAME}`, `${root}/link-dir/../${o}/${CANARY_NAME}`,
    `${root}/fifo`, '/dev/zero', '/etc/passwd', 'relative/path', `..`, '',
  ]
  const malformed = [
    `${root}/${CANARY_NAME}\0`, `${root}/a\nb`, `${root}/\r`, `${root}/\u001b[31m`, `${root}/\u007f`, `${root}/${'a'.repeat(255)}`, `${root}/${'a'.repeat(256)}`,
    `${root}/${'ü'.repeat(128)}`, `${root}/${'sub/'.repeat(1100)}x`, `${root}/\ud800`, `${root}/ ${CANARY_NAME} `, `${root}/sub/`, `${root}/sub/.`, `${root}/CON`, `${root}/.`,
  ]
  return [...traversal, ...malformed]
}

interface Outcome { requests: number; findings: string[]; statuses: Record<number, number> }

async function probe(method: string, path: string, body: unknown, out: Outcome): Promise<void> {
  out.requests++
  let res
  try {
    res = await Promise.race([
      gw.request(method, path, body === undefined ? {} : { body }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer within 15 s')), 15_000)),
    ])
  } catch (err) {
    out.findings.push(`${method} ${path.slice(0, 120)}: ${(err as Error).message}`)
    return
  }
  out.statuses[res.status] = (out.statuses[res.status] ?? 0) + 1
  if (res.status >= 500) out.findings.push(`${method} ${path.slice(0, 120)}: ${res.status} ${res.text.slice(0, 120)}`)
  if (res.text.includes('CANARY-91c2')) out.findings.push(`${method} ${path.slice(0, 120)}: the canary's bytes were served`)
  // Listed: an entry or match that is the canary itself or lives in the canary's directory. (The
  // corpus legitimately creates odd names inside the root, so names alone are not enough.)
  const rows = [...(res.body?.entries ?? []), ...(res.body?.matches ?? [])] as Array<{ name?: string; path?: string }>
  if (rows.some((r) => r.name === CANARY_NAME || r.path?.startsWith(`${outside}/`)) || res.body?.path === outside || res.body?.base === outside) {
    out.findings.push(`${method} ${path.slice(0, 120)}: the canary or its directory was listed: ${JSON.stringify(rows.filter((r) => r.name === CANARY_NAME || r.path?.startsWith(`${outside}/`))).slice(0, 300)}`)
  }
}

function q(path: string): string {
  return [...path].map((c) => (/[\ud800-\udfff]/.test(c) ? '%ED%A0%80' : encodeURIComponent(c))).join('')
}

async function attack(path: string, out: Outcome): Promise<void> {
  await probe('GET', `/fs/read?path=${q(path)}`, undefined, out)
  await probe('GET', `/fs/list?path=${q(path)}`, undefined, out)
  await probe('GET', `/fs/find?path=${q(path)}&q=canary`, undefined, out)
  await probe('PUT', '/fs/write', { path, content: 'PWNED' }, out)
  await probe('PUT', '/fs/write', { path, content: 'PWNED', expectedHash: '0'.repeat(64) }, out)
  await probe('GET', `/sdk-sessions?profile=primary&dir=${q(path)}`, undefined, out)
  await probe('POST', '/sessions', { profile: 'primary', cwd: path }, out)
}

async function outsideUntouched(out: Outcome): Promise<void> {
  const names = (await readdir(outside)).sort()
  if (names.join() !== [CANARY_NAME, 'icon.png'].sort().join()) out.findings.push(`files appeared outside the roots: ${names.join(', ')}`)
  if ((await readFile(join(outside, CANARY_NAME), 'utf8')) !== CANARY) out.findings.push('the canary was written')
}

describe('filesystem attack corpus', () => {
  it('no path in the corpus reads, lists or writes the canary, and none is a 5xx', async () => {
    const out: Outcome = { requests: 0, findings: [], statuses: {} }
    for (const path of corpus()) await attack(path, out)
    // The project icon route: the config points through a link out of the project root.
    const session = await gw.createSession({ profile: 'primary', cwd: root })
    expect(session.project?.icon).toBeUndefined()
    await probe('GET', `/sessions/${session.id}/project/icon`, undefined, out)
    await outsideUntouched(out)
    announce('fs-corpus', { paths: corpus().length, requests: out.requests, statuses: out.statuses, findings: out.findings.length })
    for (const f of out.findings.slice(0, 20)) console.log(`[reliability] finding: ${f}`)
    expect(out.findings).toEqual([])
  }, scaled(120_000, 600_000))

  it(`a parent swapped for a symlink while ${RACE_REQUESTS} requests race it never leads to the canary`, async () => {
    const out: Outcome = { requests: 0, findings: [], statuses: {} }
    let stop = false
    let swaps = 0
    const swapper = (async () => {
      while (!stop) {
        await rename(join(root, 'swap'), join(root, 'swap-real'))
        await symlink(outside, join(root, 'swap'))
        await new Promise((r) => setImmediate(r))
        await unlink(join(root, 'swap'))
        await rename(join(root, 'swap-real'), join(root, 'swap'))
        swaps++
      }
    })()
    const target = join(root, 'swap', CANARY_NAME)
    try {
      for (let i = 0; i < RACE_REQUESTS; i++) {
        switch (i % 4) {
          case 0: await probe('GET', `/fs/read?path=${q(target)}`, undefined, out); break
          case 1: await probe('GET', `/fs/list?path=${q(join(root, 'swap'))}`, undefined, out); break
          case 2: await probe('GET', `/fs/find?path=${q(root)}&q=canary`, undefined, out); break
          default: await probe('PUT', '/fs/write', { path: join(root, 'swap', `new-${i}.txt`), content: 'PWNED' }, out)
        }
      }
    } finally {
      stop = true
      await swapper
    }
    await outsideUntouched(out)
    announce('fs-race', { requests: out.requests, swaps, statuses: out.statuses, findings: out.findings.length })
    for (const f of out.findings.slice(0, 20)) console.log(`[reliability] finding: ${f}`)
    expect(out.findings).toEqual([])
    expect(swaps).toBeGreaterThan(0)
  }, scaled(120_000, 900_000))
})
