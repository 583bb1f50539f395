/**
 * A target as an implementer on real engines would set it up: `gateway serve
 * --config` (the operator command) whose cli_primary profile runs the real Claude Code CLI and
 * whose cli_secondary profile runs the real `codex app-server`, each pointed at the kit's fake
 * model API on a loopback port, and a manifest saying so (`realEngines`). The fake APIs are NOT
 * started here: the addresses are reserved and written into the gateway's configuration and the
 * manifest, and the kit starts the fakes there (conformance/target/model-apis.ts), as it does for
 * an implementer who leaves them to it.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import type { TargetManifest } from '../../conformance/types.ts'
import { runGateway, serveGateway, type ServingGateway } from './gateway-command.ts'
import { isolatedDirs } from './real-binaries.ts'

export interface RealEnginesTarget {
  manifest: TargetManifest
  gateway: ServingGateway
  close(): Promise<void>
}

/** A free loopback port (listened on and released; the kit listens there next). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** codex's config.toml: the loopback model provider, and no outbound plugin or update traffic (codex-app-server-protocol §13). */
function codexConfig(baseURL: string): string {
  return [
    'model = "mock-model"', 'model_provider = "mock"', '',
    '[model_providers.mock]', 'name = "mock"', `base_url = "${baseURL}"`, 'wire_api = "responses"', 'requires_openai_auth = false',
    'supports_websockets = false', 'request_max_retries = 0', 'stream_max_retries = 0', '',
    '[features]', 'plugins = false', 'remote_plugin = false', 'apps = false', 'in_app_updates = false', '',
  ].join('\n')
}

async function token(principals: string, id: string, extra: string[]): Promise<string> {
  const created = await runGateway(['token', 'create', '--principals', principals, '--id', id, ...extra])
  if (created.code !== 0) throw new Error(`gateway token create --id ${id} failed: ${created.stderr}`)
  return created.stdout.trim()
}

export async function startRealEnginesTarget(binaries: { claude: string; codex: string }): Promise<RealEnginesTarget> {
  const dirs = await isolatedDirs('real-engines-target')
  try {
    const [claudeConfig, codexHome, work] = await Promise.all([dirs.extra('claude-config'), dirs.extra('codex-home'), dirs.extra('work')])
    const [anthropicPort, responsesPort] = [await freePort(), await freePort()]
    const anthropicUrl = `http://127.0.0.1:${anthropicPort}`
    const responsesUrl = `http://127.0.0.1:${responsesPort}/v1`
    await writeFile(join(codexHome, 'config.toml'), codexConfig(responsesUrl))
    // A project above a working directory, for session.3 (its cases run on the cli_primary profile).
    const projectCwd = join(work, 'demo-project', 'src')
    await mkdir(projectCwd, { recursive: true })
    await writeFile(join(work, 'demo-project', '.gateway.json'), JSON.stringify({ name: 'Demo project', icon: 'icon.svg' }))
    await writeFile(join(work, 'demo-project', 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>')

    const principals = join(dirs.root, 'principals.json')
    const operator = await token(principals, 'ops', ['--operator'])
    const tenantA = await token(principals, 'tenant-a', ['--scope', 'team=a'])
    const tenantB = await token(principals, 'tenant-b', ['--scope', 'team=b'])
    const config = join(dirs.root, 'gateway.json')
    await writeFile(config, JSON.stringify({
      listen: { host: '127.0.0.1', port: 0 },
      auth: { principalsFile: principals },
      engines: { cli_primary: { executable: binaries.claude }, cli_secondary: { codexPath: binaries.codex } },
      profiles: [
        { name: 'claude', engine: 'cli_primary', description: 'the real Claude Code CLI on the fake Messages API', configDir: claudeConfig },
        { name: 'codex', engine: 'cli_secondary', description: 'the real codex app-server on the fake Responses API', codexHome },
      ],
      allowedCwdRoots: [work],
      attachments: { maxFileBytes: 65536, maxSessionBytes: 262144 },
      logging: { level: 'info' },
    }, null, 2))
    const gateway = await serveGateway(config, {
      ...process.env,
      // What every CLI process inherits: the fake Messages API, a fake key, no telemetry, a HOME of its own.
      ANTHROPIC_BASE_URL: anthropicUrl,
      ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-the-kit',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      HOME: dirs.home,
      TMPDIR: dirs.tmp,
    })
    const manifest: TargetManifest = {
      baseUrl: gateway.url,
      tokens: { operator, tenantA, tenantB },
      profiles: { cli_primary: 'claude', cli_secondary: 'codex' },
      cwdRoot: work,
      project: { cwd: projectCwd, name: 'Demo project' },
      // A real CLI starts and decides far slower than the fake, and slower still on a loaded 2-core
      // CI machine (one run saw a Bash permission ask take over 15 s): the wait a turn may take.
      timers: { turnMs: 30_000 },
      realEngines: { cli_primary: { modelApi: anthropicUrl }, cli_secondary: { modelApi: responsesUrl } },
      features: ['cli_primary', 'cli_secondary', 'attachments', 'project'],
      absent: [],
    }
    return {
      manifest,
      gateway,
      async close() {
        if (gateway.child.exitCode === null && gateway.child.signalCode === null) {
          gateway.child.kill('SIGTERM')
          const timer = setTimeout(() => gateway.child.kill('SIGKILL'), 10_000)
          await gateway.exited
          clearTimeout(timer)
        }
        await dirs.dispose()
      },
    }
  } catch (err) {
    await dirs.dispose()
    throw err
  }
}
