/**
 * (e) the gateway side of both memory steps: a gateway (provider engine on the model server whose
 * URL is argv[2]) in its own process started with --expose-gc, so its resident memory is the
 * gateway's alone; the client and the model server live in the parent (memory-gateway.ts). On the
 * IPC message 'measure' it collects garbage as an idle process would; on 'measure-pressure' with a
 * last-resort collection, which is what V8 runs under memory pressure and which also hands the
 * heap pages V8 keeps pooled back to the system. It answers its memory usage.
 */
import { createAiSdkRunner } from '../gateway/engines/provider/index.ts'
import { createGatewayServer } from '../gateway/server/create-server.ts'

const gc = (globalThis as { gc?: (options?: object) => void }).gc
if (!gc || !process.send) throw new Error('run with --expose-gc, forked with IPC')
const baseURL = process.argv[2]

const gateway = createGatewayServer({
  allowUnauthenticated: true,
  profiles: [{ name: 'default', engine: 'provider', provider: { id: 'fake', model: 'fake-small' } }],
  createEngineRunner: (ctx) => createAiSdkRunner(ctx, { baseURL }),
})
const { url } = await gateway.listen(0, '127.0.0.1')
process.on('message', async (message) => {
  if (message !== 'measure' && message !== 'measure-pressure') return
  // Always an options object: `gc(undefined)` is not `gc()`, it runs only a young-generation
  // collection, which left every deleted session's old-space garbage in the ordinary reading.
  const options = { type: 'major', execution: 'sync', flavor: message === 'measure-pressure' ? 'last-resort' : 'regular' }
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 50))
    gc(options)
  }
  const usage = process.memoryUsage()
  process.send!({ rss: usage.rss, heap: usage.heapUsed, heapTotal: usage.heapTotal, external: usage.external, sessions: gateway.context.registry.size })
})
process.send({ url })
