/**
 * The operator commands called in-process: what each refuses (a UsageError, which the `gateway`
 * command prints with its usage and turns into exit 2) and what `token create` prints where.
 * operator-commands.test.ts runs the command itself for the exit codes and the entry point.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { readPrincipals } from '../config/principals.ts'
import { checkCommand, serveCommand, tokenCommand } from './config-commands.ts'
import { devCommand } from './dev.ts'
import { UsageError } from './usage.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-commands-'))
})
afterEach(async () => {
  vi.restoreAllMocks()
  await rm(dir, { recursive: true, force: true })
})

/** The UsageError `run` throws: its message (the line the operator reads first). */
async function usageError(run: () => Promise<unknown>): Promise<string> {
  const err = await run().then(() => undefined, (e: unknown) => e)
  expect(err).toBeInstanceOf(UsageError)
  return (err as UsageError).message
}

describe('usage errors of the operator commands', () => {
  it('name the missing or wrong argument', async () => {
    const file = join(dir, 'not-a-dir')
    await writeFile(file, '')
    expect(await usageError(() => tokenCommand([]))).toBe('a token action is required')
    expect(await usageError(() => tokenCommand(['list']))).toBe("unknown token action 'list'")
    expect(await usageError(() => tokenCommand(['create', '--id', 'x', '--operator']))).toBe('--principals is required')
    expect(await usageError(() => tokenCommand(['create', '--principals', join(dir, 'p.json'), '--operator']))).toBe('--id is required')
    expect(await usageError(() => tokenCommand(['create', '--principals', join(dir, 'p.json'), '--id', 'x', '--scope', 'tenant']))).toBe("--scope 'tenant' must be key=value")
    expect(await usageError(() => serveCommand([]))).toBe('--config is required')
    expect(await usageError(() => serveCommand(['--config', 'x.yaml', '--port', '1.5']))).toBe('--port must be an integer from 0 to 65535')
    expect(await usageError(() => checkCommand([]))).toBe('--config is required')
    for (const port of ['1.5', '-1', '65536']) expect(await usageError(() => devCommand([`--port=${port}`]))).toBe('--port must be an integer from 0 to 65535')
    expect(await usageError(() => devCommand(['--port', '0', '--cwd-root', join(dir, 'missing')]))).toMatch(/^--cwd-root .*missing does not exist/)
    expect(await usageError(() => devCommand(['--port', '0', '--cwd-root', file]))).toMatch(/^--cwd-root .*not-a-dir is not a directory$/)
  })
})

describe('token create', () => {
  it('prints the token alone on stdout, where the principal went on stderr, and refuses an unrestricted principal not asked for', async () => {
    const out = vi.spyOn(console, 'log').mockImplementation(() => {})
    const err = vi.spyOn(console, 'error').mockImplementation(() => {})
    const principals = join(dir, 'principals.json')
    expect(await tokenCommand(['create', '--principals', principals, '--id', 'ops', '--operator'])).toBeUndefined()
    expect(out.mock.calls).toEqual([[expect.stringMatching(/^gw_\S{20,}$/)]])
    expect(err.mock.calls).toEqual([[`principal 'ops' added to ${principals}; the token above is not stored anywhere`]])
    expect(Object.values((await readPrincipals(principals)).principals)).toEqual([{ id: 'ops', operator: true }])
    err.mockClear()
    await tokenCommand(['create', '--principals', principals, '--id', 'ops', '--scope', 'tenant=a', '--scope', 'team=b', '--replace'])
    expect(err.mock.calls).toEqual([[`principal 'ops' replaced in ${principals}; the token above is not stored anywhere`]])
    expect(Object.values((await readPrincipals(principals)).principals)).toEqual([{ id: 'ops', scope: { tenant: 'a', team: 'b' } }])
    err.mockClear()
    expect(await tokenCommand(['create', '--principals', principals, '--id', 'anyone'])).toBe(2)
    expect(err.mock.calls).toEqual([[expect.stringMatching(/add --scope key=value .*or --operator/)]])
    expect(await tokenCommand(['create', '--principals', principals, '--id', 'ops', '--operator'])).toBe(2)
    expect(err.mock.calls[1]).toEqual([expect.stringMatching(/principal 'ops' already exists/)])
  })
})
