import { createGatewayServer, type Principal } from 'agent-session-gateway'
import { createAiSdkRunner } from 'agent-session-gateway/engines/provider'
import { createFileSessionStore } from 'agent-session-gateway/stores/file'

// One operator with a bearer token; a real host looks principals up in its own user store.
const operator: Principal = { name: 'operator', operator: true }
const token = process.env.GATEWAY_TOKEN

const gateway = createGatewayServer({
  authenticate: (req) => (token && req.headers.authorization === `Bearer ${token}` ? operator : null), // null → 401
  profiles: [{
    name: 'default',
    engine: 'provider',
    // Any OpenAI-compatible endpoint; the key is read from the variable named here, never sent to clients.
    provider: { id: 'openai-compatible', model: process.env.MODEL ?? 'gpt-4o-mini', apiKeyEnv: 'MODEL_API_KEY', baseURL: process.env.MODEL_BASE_URL },
  }],
  // eval_script in a QuickJS sandbox is always there; grants, deferred and bridged tools are wired here.
  createEngineRunner: (ctx) => createAiSdkRunner(ctx, {
    backends: { fetch: true },
    deferredTools: { approve_invoice: { description: 'A person approves; answer via POST /executions/:id/result' } },
  }),
  // Parked sessions survive restarts.
  parking: { store: createFileSessionStore({ dir: process.env.PARK_DIR ?? '/var/lib/gateway/parks' }) },
})

const { url } = await gateway.listen(Number(process.env.PORT ?? 8787), '127.0.0.1')
console.log(`gateway listening on ${url}`)
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void gateway.close().then(() => process.exit(0)))
