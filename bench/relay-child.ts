/**
 * A relay in a process of its own, the floor the streaming rows measure the gateway against:
 * it speaks just enough of the gateway's API for the bench clients (`POST /v1/sessions` naming a
 * profile, `DELETE`, a WebSocket per session at `/v1/sessions/:id/ws` that greets with an idle
 * status), and on a `user_message` streams the model server's answer to that socket, one
 * WebSocket frame per text delta (the same wire frame as the gateway's `stream_delta`), then a
 * `turn_result`. Nothing else: no event log, no numbering, no metrics, no budget.
 *
 * - `bare`: `node:http` reads the SSE, each event is split out and `JSON.parse`d, its delta text
 *   sent: what any relay pays, with no model layer at all.
 * - `sdk`: the gateway's own model layer, as the provider runner calls it per leg (turn.ts
 *   `openModelCall`): the profile's model from `model-factory.ts` (the lean OpenAI-compatible
 *   model by default, read by lean-call.ts; any other under the AI SDK's
 *   `streamLanguageModelCall`). Ours minus this is the gateway's own cost per delta.
 *
 * `node --import tsx bench/relay-child.ts <bare|sdk> <model base URL>…` prints its base URL.
 */
import { createServer, request, type IncomingMessage } from 'node:http'
import { randomUUID } from 'node:crypto'
import { WebSocketServer, type WebSocket } from 'ws'

const [layer, ...modelURLs] = process.argv.slice(2)
if ((layer !== 'bare' && layer !== 'sdk') || !modelURLs.length) throw new Error('usage: relay-child.ts <bare|sdk> <model base URL>…')

// Profiles as operator-gateway.ts names them: `default`, then `model-1`, `model-2`, …
const baseURLOf = (profile: string) => modelURLs[profile === 'default' ? 0 : Number(profile.replace('model-', ''))] ?? modelURLs[0]
const sessions = new Map<string, string>()

const IDLE = '{"type":"event","event":{"type":"status_changed","status":"idle"}}'
const RESULT = '{"type":"event","event":{"type":"turn_result","subtype":"success"}}'
const deltaFrame = (text: string) => `{"type":"event","event":{"type":"stream_delta","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}}}`

function streamBare(ws: WebSocket, baseURL: string, text: string): void {
  const body = JSON.stringify({ model: 'fake-small', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: text }] })
  const req = request(`${baseURL}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res: IncomingMessage) => {
    res.setEncoding('utf8')
    let buffered = ''
    res.on('data', (chunk: string) => {
      buffered += chunk
      let end
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const event = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        if (!event.startsWith('data: ') || event === 'data: [DONE]') continue
        const delta = (JSON.parse(event.slice(6)) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content
        if (delta) ws.send(deltaFrame(delta))
      }
    })
    res.on('end', () => ws.send(RESULT))
  })
  req.on('error', () => ws.close())
  req.end(body)
}

// Loaded by the SDK relay only, so the bare relay's process holds no model layer.
const sdk = layer === 'sdk'
  ? { ...(await import('../gateway/engines/provider/turn.ts')), ...(await import('../gateway/engines/provider/model-factory.ts')) }
  : undefined

async function streamSdk(ws: WebSocket, profile: string, text: string): Promise<void> {
  const { openModelCall, providerFor } = sdk!
  const { provider } = providerFor({ name: profile, engine: 'provider', provider: { id: 'fake', baseURL: baseURLOf(profile), model: 'fake-small' } }, {})
  const { stream } = await openModelCall({ model: provider.chatModel('fake-small'), messages: [{ role: 'user', content: text }], abortSignal: new AbortController().signal })
  for await (const part of stream) if (part.type === 'text-delta' && part.text) ws.send(deltaFrame(part.text))
  ws.send(RESULT)
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    if (req.method === 'POST' && req.url === '/v1/sessions') {
      const id = randomUUID()
      sessions.set(id, (JSON.parse(Buffer.concat(chunks).toString() || '{}') as { profile?: string }).profile ?? 'default')
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ session: { id } }))
    } else if (req.method === 'DELETE') {
      sessions.delete(req.url!.split('/')[3])
      res.writeHead(204).end()
    } else res.writeHead(404).end()
  })
})
const wss = new WebSocketServer({ server, perMessageDeflate: false })
wss.on('connection', (ws, req) => {
  const profile = sessions.get(req.url!.split('/')[3]) ?? 'default'
  ws.send(IDLE)
  ws.on('message', (data: Buffer) => {
    const { text } = JSON.parse(data.toString()) as { text: string }
    if (layer === 'bare') streamBare(ws, baseURLOf(profile), text)
    else streamSdk(ws, profile, text).catch(() => ws.close())
  })
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number }
  console.log(`http://127.0.0.1:${address.port}/v1`)
})
