/**
 * Runs the browser-panel example on the fake Claude Code CLI (from the conformance kit), so it can
 * be tried without an account: `npx tsx examples/browser-panel/main.ts`, then open the printed URL
 * and log in as alice or bob. A real deployment passes the real CLI to createCliPrimaryAdapter.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCliPrimaryAdapter } from 'agent-session-gateway/engines/cli-primary'
import { FAKE_CLAUDE_CLI_NODE_ARGS, FAKE_CLAUDE_CLI_PATH } from 'gateway-conformance/fakes/claude-cli'
import { bundlePanel } from './page/bundle.ts'
import { createPanelApp } from './server.ts'

const app = createPanelApp({
  workRoot: await mkdtemp(join(tmpdir(), 'browser-panel-')),
  cookieSecret: process.env.COOKIE_SECRET ?? 'change me: keep this secret across restarts',
  engines: { cli_primary: createCliPrimaryAdapter({ pathToClaudeCodeExecutable: FAKE_CLAUDE_CLI_PATH, executable: process.execPath, executableArgs: FAKE_CLAUDE_CLI_NODE_ARGS }) },
  users: { alice: { tenant: 'acme' }, bob: { tenant: 'globex' } },
  page: await bundlePanel(),
})
const { url } = await app.listen(Number(process.env.PORT ?? 8790), '127.0.0.1')
console.log(`browser panel on ${new URL(url).origin}/ (log in as alice or bob; try "scenario:permission")`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)))
