/**
 * The preflight against a real gateway (the self target): a refused token is named, a declared
 * profile the target lacks or runs on another engine is named, and the command exits 2 before
 * any case runs. With the operator token alone (`--url`) the preflight passes.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { preflight } from '../preflight.ts'
import { startSelfTarget, type SelfTarget } from '../target/self.ts'

const CLI = fileURLToPath(new URL('../cli.ts', import.meta.url))
let target: SelfTarget

function runCli(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', CLI, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, output: stdout + stderr })
    })
  })
}

beforeAll(async () => { target = await startSelfTarget() }, 60_000)
afterAll(async () => { await target?.close() })

describe('the preflight', () => {
  it('passes for the self target\'s own manifest', async () => {
    expect(await preflight(target.manifest)).toEqual([])
  })

  it('names a refused token and a missing or mismatched profile', async () => {
    const m = target.manifest
    expect(await preflight({ ...m, tokens: { ...m.tokens, tenantB: 'wrong' } })).toEqual(['tenantB token was refused: 401'])
    const problems = await preflight({ ...m, profiles: { provider: 'no-such-profile', cli_primary: m.profiles.provider } })
    expect(problems[0]).toMatch(/^profiles.provider: profile 'no-such-profile' does not exist on the target/)
    expect(problems[1]).toBe(`profiles.cli_primary: profile '${m.profiles.provider}' runs engine provider, the role needs cli_primary`)
  })

  it('stops the command with exit 2 for a wrong token, naming it', async () => {
    const res = await runCli(['--url', target.manifest.baseUrl, '--token', 'not-the-token', '--filter', 'sessions-create'])
    expect(res.code).toBe(2)
    expect(res.output).toContain('preflight: operator token was refused: 401')
    expect(res.output).not.toContain('running ')
  }, 60_000)

  it('takes a token that begins with a dash as the value of --token (a generated base64url token may)', async () => {
    const res = await runCli(['--url', target.manifest.baseUrl, '--token', '-dash-first-token', '--filter', 'sessions-create'])
    expect(res.output).not.toContain('ambiguous')
    expect(res.output).toContain('preflight: operator token was refused: 401')
    expect(res.code).toBe(2)
  }, 60_000)

  it('runs with the operator token alone, and a manifest written for --target is refused on a typo', async () => {
    const ok = await runCli(['--url', target.manifest.baseUrl, '--token', target.manifest.tokens.operator!, '--profile', target.manifest.profiles.provider!, '--filter', 'sessions-create-201', '--reports', await mkdtemp(join(tmpdir(), 'pf-'))])
    expect(ok.output).toContain('running 1 cases')
    expect(ok.code).toBe(0)
    const dir = await mkdtemp(join(tmpdir(), 'pf-'))
    await writeFile(join(dir, 'm.json'), JSON.stringify({ baseUrl: target.manifest.baseUrl, tokens: { operator: target.manifest.tokens.operator }, features: ['provder'] }))
    const typo = await runCli(['--target', join(dir, 'm.json')])
    expect(typo.code).toBe(2)
    expect(typo.output).toContain("did you mean 'provider'?")
  }, 60_000)
})
