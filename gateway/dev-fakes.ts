/**
 * The fake engines `gateway dev` runs on. They ship in the conformance kit (`gateway-conformance`,
 * an optional peer of the gateway package), so they are imported only when the development
 * gateway starts. Inside this repository, tsconfig `paths` map the same specifiers onto
 * fake-engines/ (tsx and tsc honour them). The specifiers are not literals so that the gateway's
 * build does not compile the kit into its own output; the shapes below are what dev-gateway uses,
 * and gateway/test/dev-fakes.test.ts checks the kit's modules against them.
 */
import { importOptional } from './optional-package.ts'

export const KIT_PACKAGE = 'gateway-conformance'

export interface KitFakes {
  startFakeModelServer(options: { host?: string; port?: number }): Promise<{ baseURL: string; close(): Promise<void> }>
  /** The fake Anthropic Messages API the real Claude Code CLI is pointed at (`gateway dev --claude-executable`). */
  startFakeAnthropicServer(options: { host?: string; port?: number }): Promise<{ url: string; close(): Promise<void> }>
  startFakeMcpServer(options: { host?: string; port?: number }): Promise<{ url: string; revoke(token: string): void; close(): Promise<void> }>
  /** The fake Claude Code CLI's script and the Node arguments that run it. */
  FAKE_CLAUDE_CLI_PATH: string
  FAKE_CLAUDE_CLI_NODE_ARGS: string[]
  /** The fake codex app-server's script and the Node arguments that run it. */
  FAKE_CODEX_APP_SERVER_PATH: string
  FAKE_CODEX_APP_SERVER_NODE_ARGS: string[]
}

export async function loadKitFakes(): Promise<KitFakes> {
  return importOptional(KIT_PACKAGE, 'gateway dev (the gateway on the fake engines)', async () => {
    const fakes = await Promise.all(['provider-model', 'mcp-server', 'claude-cli', 'codex-app-server', 'anthropic-messages'].map((fake) => import(`${KIT_PACKAGE}/fakes/${fake}`)))
    return Object.assign({}, ...fakes) as KitFakes
  })
}
