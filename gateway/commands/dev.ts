/**
 * `gateway dev` (and bare options, as before): the development gateway on the fake engines, with
 * bearer tokens for every role the conformance kit needs and an optional target manifest.
 * Its development-only switch (`--claude-executable`) lives here and never in `gateway serve`.
 */
import { mkdir, mkdtemp, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startDevGateway, type DevGatewayOptions } from '../dev-gateway.ts'
import { DEV_USAGE, UsageError } from './usage.ts'
import { attachAccessLog } from '../config/access-log.ts'
import { logSessionLifecycle } from '../config/lifecycle-log.ts'
import { createLogger } from '../config/logger.ts'

/** Credential variables the development gateway and its engines may read; their values are redacted from every line. */
const CREDENTIAL_VARIABLES = ['FAKE_MODEL_API_KEY', 'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'OPENAI_API_KEY', 'CODEX_API_KEY']


async function readTokens(path: string): Promise<DevGatewayOptions['tokens']> {
  try {
    return JSON.parse(await readFile(path, 'utf8'))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`cannot read --tokens-file ${path}: ${(err as Error).message}`)
  }
}

/**
 * The folder sessions' cwds and the engines' homes (Claude config dirs, CODEX_HOME) live under.
 * With `--store-dir` and no `--cwd-root` it is `<store-dir>/cwd-root`, the same on every start:
 * a dormant CLI session resumes from those homes (embedding-rules.14), so a fresh temporary one
 * would lose them. Without either it is a new temporary folder.
 */
async function cwdRootOf(given: string | undefined, storeDir: string | undefined): Promise<string> {
  if (given === undefined) {
    if (storeDir === undefined) return mkdtemp(join(tmpdir(), 'gateway-cwd-'))
    const stable = join(storeDir, 'cwd-root')
    await mkdir(stable, { recursive: true })
    return stable
  }
  const found = await stat(given).catch(() => undefined)
  if (!found) throw new UsageError(`--cwd-root ${given} does not exist (it must be an existing directory)`, DEV_USAGE)
  if (!found.isDirectory()) throw new UsageError(`--cwd-root ${given} is not a directory`, DEV_USAGE)
  return given
}

export async function devCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '8787' },
      host: { type: 'string', default: '127.0.0.1' },
      manifest: { type: 'string' },
      'cwd-root': { type: 'string' },
      'webhook-url': { type: 'string' },
      'park-delay-ms': { type: 'string' },
      'store-dir': { type: 'string' },
      'tokens-file': { type: 'string' },
      'claude-executable': { type: 'string' },
      'model-url': { type: 'string' },
    },
  })
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be an integer from 0 to 65535', DEV_USAGE)
  const options: DevGatewayOptions = {
    port,
    host: values.host,
    cwdRoot: await cwdRootOf(values['cwd-root'], values['store-dir']),
    webhookUrl: values['webhook-url'],
    parkDelayMs: values['park-delay-ms'] === undefined ? undefined : Number(values['park-delay-ms']),
    storeDir: values['store-dir'],
    // A restart that must find its sessions again needs the same principals (embedding-rules.15).
    tokens: values['tokens-file'] ? await readTokens(values['tokens-file']) : undefined,
    claudeExecutable: values['claude-executable'],
    modelUrl: values['model-url'],
  }
  const dev = await startDevGateway(options)
  // JSON lines like `gateway serve`, quieter by default (GATEWAY_LOG_LEVEL=info shows every request).
  const logger = createLogger({
    level: process.env.GATEWAY_LOG_LEVEL ?? 'warn',
    secrets: CREDENTIAL_VARIABLES.map((name) => process.env[name] ?? '').filter(Boolean),
  })
  attachAccessLog(dev.gateway.server, logger)
  logSessionLifecycle(dev.gateway, logger)
  if (values['tokens-file'] && !options.tokens) await writeFile(values['tokens-file'], `${JSON.stringify(dev.manifest.tokens)}\n`, { mode: 0o600 })
  if (values.manifest) {
    // Written atomically so a watcher never reads half a manifest.
    const tmp = `${values.manifest}.${process.pid}.tmp`
    await writeFile(tmp, `${JSON.stringify(dev.manifest, null, 2)}\n`, { mode: 0o600 })
    await rename(tmp, values.manifest)
  }
  console.log(`gateway listening on ${dev.manifest.baseUrl}`)
  console.log('authenticate with a bearer token: Authorization: Bearer <token>')
  for (const [who, token] of Object.entries(dev.manifest.tokens)) console.log(`  ${who.padEnd(10)} ${token}`)
  console.log(`profiles: ${Object.values(dev.manifest.profiles).join(', ')}; cwd root ${dev.manifest.cwdRoot}`)
  if (values.manifest) console.log(`manifest written to ${values.manifest}`)
  const stop = async () => {
    await dev.close()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
