/**
 * (e) resident memory per idle session, in a child process started with --expose-gc: N real
 * provider-engine sessions (AI SDK runner, fake model server), created over HTTP and left idle.
 */
import { startFakeModelServer } from '../fake-engines/provider-model/server.ts'
import { createAiSdkRunner } from '../gateway/engines/provider/index.ts'
import { createGatewayServer } from '../gateway/server/create-server.ts'

const count = Number(process.argv[2] ?? 1000)
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc')
const collect = () => { gc(); gc() }

const model = await startFakeModelServer()
const gateway = createGatewayServer({
  allowUnauthenticated: true,
  profiles: [{ name: 'default', engine: 'provider', provider: { id: 'fake', model: 'fake-small' } }],
  createEngineRunner: (ctx) => createAiSdkRunner(ctx, { baseURL: model.baseURL }),
})
const { url } = await gateway.listen(0, '127.0.0.1')
const create = () => fetch(`${url}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.arrayBuffer())
for (let i = 0; i < 50; i++) await create() // warm every code path before the baseline reading
await new Promise((r) => setTimeout(r, 100))
collect()
const before = process.memoryUsage()
for (let i = 0; i < count; i++) await create()
await new Promise((r) => setTimeout(r, 200))
await fetch(`${url}/sessions`).then((r) => r.arrayBuffer()) // the list caches each row's JSON too
collect()
const after = process.memoryUsage()
const per = (key: keyof NodeJS.MemoryUsage) => (after[key] - before[key]) / count
// heapTotal and external say what of the resident growth V8 holds (committed pages, buffers);
// the rest is native: malloc arenas, code, thread stacks.
process.stdout.write(JSON.stringify({ heap: per('heapUsed'), rss: per('rss'), heapTotal: per('heapTotal'), external: per('external') }))
await gateway.close()
await model.close()
