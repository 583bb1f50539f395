/**
 * The `self-minimal` target's child program: our gateway embedded the way an app developer embeds
 * it (`createGatewayServer` from the package's library entry, as `examples/library/server.ts`
 * does), with only what such an app must write: provider profiles on the kit's fake model server
 * and an `authenticate` hook. Nothing else is configured but a notification webhook's URL (so its
 * deliveries run on the spec's defaults): no queue, no profileStore, no hostFiles and no
 * allowedCwdRoots (which hostFiles would fall back to), no CLI engines, no CORS, no fallback. So
 * the routes of those features must answer as the spec says a gateway without them answers
 * (jobs-and-queue.1, authentication.6, engine-session-stores-and-host-files.8).
 *
 *   node --import tsx conformance/target/minimal-gateway.ts <inputs.json> <port>
 *
 * `inputs.json` (written by self-minimal.ts, `MinimalInputs`): the fake model URL, the profile
 * names and models, the notification webhook's URL, and the principals keyed by the SHA-256 of
 * their bearer token, so no token sits in the file. Prints one JSON line
 * `{"msg":"gateway listening","url":…}` once it listens; SIGTERM closes it.
 *
 * Repository only: the kit's package does not compile it (it imports the gateway, which the kit
 * package never carries).
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createGatewayServer, type Principal } from 'agent-session-gateway'
import { createAiSdkRunner } from 'agent-session-gateway/engines/provider'
import type { MinimalInputs } from './self-minimal.ts'

const [inputsPath, port] = process.argv.slice(2)
const inputs = JSON.parse(await readFile(inputsPath!, 'utf8')) as MinimalInputs
const principals = new Map(Object.entries(inputs.principals) as Array<[string, Principal]>)
const [small, large] = inputs.models
const gateway = createGatewayServer({
  authenticate: (req) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
    return token ? principals.get(createHash('sha256').update(token, 'utf8').digest('hex')) ?? null : null
  },
  profiles: [
    { name: inputs.profiles.provider, engine: 'provider', description: 'Provider engine on the fake model server', provider: { id: 'fake', model: small!, models: inputs.models } },
    // The kit's providerAlt role: an explicit, narrower grant list and its own default mode.
    { name: inputs.profiles.providerAlt, engine: 'provider', description: 'A second provider profile with narrower grants', provider: { id: 'fake', model: large!, models: [large!] }, defaults: { permissionMode: 'dontAsk' }, session: { capabilities: ['web_fetch'] } },
    // Names an MCP server this app never wires (no mcpServers below): a session on it must refuse to build (embedding-rules.10).
    { name: inputs.profiles.providerMcpBroken, engine: 'provider', description: 'A provider profile naming an MCP server the app does not wire', provider: { id: 'fake', model: small! }, session: { mcpServers: ['docs'] } },
  ],
  // Only the webhook's URL: attempts and retryDelayMs keep the spec's defaults (limits.15).
  notifications: { webhook: { url: inputs.webhookUrl } },
  // maxRetries 0: a scenario's scripted model error is answered at once, not retried with backoff.
  createEngineRunner: (ctx) => createAiSdkRunner(ctx, { baseURL: inputs.modelUrl, maxRetries: 0 }),
})
const { url } = await gateway.listen(Number(port ?? 0), '127.0.0.1')
console.log(JSON.stringify({ msg: 'gateway listening', url }))
process.once('SIGTERM', () => void gateway.close().then(() => process.exit(0)))
