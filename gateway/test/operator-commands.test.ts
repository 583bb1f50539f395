/**
 * The `gateway` command's quick answers, as an operator's shell sees them: exit codes, the first
 * line on stderr, what goes to stdout. Each command here exits by itself in a second or two, so
 * this file stays fast; commands.test.ts calls the commands in-process for their every refusal, and
 * serve-command.test.ts starts the documented example for the long paths.
 */
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { packageVersion } from '../protocol/package-version.ts'
import { ROOT, runGateway, type CommandResult } from './gateway-command.ts'

const version = packageVersion(new URL('../cli.ts', import.meta.url).href)
const firstLine = (r: CommandResult) => r.stderr.split('\n')[0]

/** The installed entry point (`gateway/bin.ts`), which answers --version before loading the command. */
function runBin(args: string[]): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'gateway/bin.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += c))
    child.stderr.on('data', (c) => (stderr += c))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

describe('gateway --version, --help and schema', { timeout: 60_000 }, () => {
  it('print to stdout and exit 0, through the entry point and on every subcommand', async () => {
    const [binVersion, binHelp, tokenVersion, checkHelp, tokenHelp, schema] = await Promise.all([
      runBin(['-v']), runBin(['--help']), runGateway(['token', '--version']), runGateway(['check', '--help']),
      runGateway(['token', '--help']), runGateway(['schema']),
    ])
    expect(binVersion).toMatchObject({ code: 0, stdout: `${version}\n` })
    expect(binHelp.code).toBe(0)
    expect(binHelp.stdout).toMatch(/^usage: gateway <command>/)
    expect(tokenVersion).toMatchObject({ code: 0, stdout: `${version}\n` })
    expect(checkHelp.code).toBe(0)
    expect(checkHelp.stdout).toMatch(/^usage: gateway check --config <file>/)
    expect(tokenHelp.code).toBe(0)
    expect(tokenHelp.stdout).toMatch(/^usage: gateway token create --principals <file> --id <name>/)
    expect(schema.code).toBe(0)
    expect(JSON.parse(schema.stdout)).toEqual(JSON.parse(await readFile(join(ROOT, 'gateway/config/gateway-config.schema.json'), 'utf8')))
  })
})

describe('gateway usage errors', { timeout: 60_000 }, () => {
  it('exit 2 with a first line naming the mistake, and nothing on stdout', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['token', 'list'], /^unknown token action 'list'$/],
      [['check', '--config', 'x', '--bogus'], /Unknown option '--bogus'/],
      [['frobnicate'], /^unknown command 'frobnicate'$/],
    ]
    const results = await Promise.all(cases.map(([args]) => runGateway(args)))
    results.forEach((result, i) => {
      const [args, line] = cases[i]
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' })
      expect(firstLine(result), args.join(' ')).toMatch(line)
    })
  })

  it('serve on a file it cannot load: exit 2, the problem, then that nothing started', async () => {
    const missing = join(ROOT, 'no-such-gateway.yaml')
    const result = await runGateway(['serve', '--config', missing])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split('\n')).toEqual([`${missing}: cannot read (ENOENT)`, 'gateway: configuration has problems; nothing started (run `gateway check --config <file>`)'])
  })
})
