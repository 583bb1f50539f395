/**
 * The model side of the variation proxy: an OpenAI-compatible layer between the gateway's provider
 * engine and the fake model server. The model sees the tools as another implementation would
 * define them (tool-shapes.ts) and its calls are mapped back to the gateway's tools, so the fake
 * model must bind each scenario through the tool definitions it is offered, never by our names.
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { argsToModel, fromModel, renamedTool, toModel, type ToolShapeOptions } from './tool-shapes.ts'

export interface ModelProxy {
  /** The OpenAI-compatible base URL (ending in /v1) the gateway is pointed at. */
  baseURL: string
  close(): Promise<void>
}

function read(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

const parseArgs = (text: unknown): Record<string, unknown> => {
  try { return typeof text === 'string' && text ? JSON.parse(text) : {} } catch { return {} }
}

/** The request as the model sees it: reshaped tools, and the transcript's earlier calls in their shape. */
function requestToModel(body: any, o: ToolShapeOptions): any {
  if (!Array.isArray(body?.tools)) return body
  const messages = Array.isArray(body.messages) ? body.messages.map((m: any) => m?.role === 'tool' && o.wrapResults ? wrapResult(m) : !Array.isArray(m?.tool_calls) ? m : {
    ...m,
    tool_calls: m.tool_calls.map((c: any) => ({ ...c, function: { ...c.function, name: renamedTool(c.function?.name, o), arguments: JSON.stringify(argsToModel(c.function?.name, parseArgs(c.function?.arguments), o)) } })),
  }) : body.messages
  return { ...body, messages, tools: body.tools.map((t: any) => toModel(t, o)) }
}

/** A tool result as the other implementation shows it to the model: `{"output": <the text>}`. */
function wrapResult(message: any): any {
  const text = typeof message.content === 'string' ? message.content : Array.isArray(message.content) ? message.content.map((p: any) => p?.text ?? '').join('') : ''
  return { ...message, content: JSON.stringify({ output: text }) }
}

function callsFromModel(calls: any[], offered: string[], o: ToolShapeOptions): any[] {
  return calls.map((c) => {
    if (typeof c?.function?.name !== 'string') return c
    const back = fromModel(c.function.name, parseArgs(c.function.arguments), offered, o)
    return { ...c, function: { ...c.function, name: back.name, arguments: JSON.stringify(back.args) } }
  })
}

/** One SSE `data:` line or a whole JSON answer, with the model's tool calls mapped back. */
function answerFromModel(json: any, offered: string[], o: ToolShapeOptions): any {
  if (!Array.isArray(json?.choices)) return json
  return {
    ...json,
    choices: json.choices.map((choice: any) => {
      const out = { ...choice }
      if (Array.isArray(choice.delta?.tool_calls)) out.delta = { ...choice.delta, tool_calls: callsFromModel(choice.delta.tool_calls, offered, o) }
      if (Array.isArray(choice.message?.tool_calls)) out.message = { ...choice.message, tool_calls: callsFromModel(choice.message.tool_calls, offered, o) }
      return out
    }),
  }
}

export async function startModelProxy(upstreamBaseURL: string, o: ToolShapeOptions): Promise<ModelProxy> {
  const upstream = new URL(upstreamBaseURL)
  const server = createServer(async (req, res) => {
    try {
      const body = await read(req)
      let json: any
      try { json = body.length ? JSON.parse(body.toString('utf8')) : undefined } catch { json = undefined }
      const offered: string[] = Array.isArray(json?.tools) ? json.tools.map((t: any) => t?.function?.name).filter((n: unknown) => typeof n === 'string') : []
      const out = json === undefined ? body : Buffer.from(JSON.stringify(requestToModel(json, o)))
      const headers = { ...req.headers, host: upstream.host, 'content-length': String(out.length) }
      const up = httpRequest(new URL(req.url ?? '/', upstream.origin), { method: req.method, headers }, (answer) => {
        const sse = String(answer.headers['content-type'] ?? '').includes('event-stream')
        const plain = { ...answer.headers }
        delete plain['content-length']
        res.writeHead(answer.statusCode ?? 502, plain)
        let buffered = ''
        answer.on('data', (chunk: Buffer) => {
          if (!sse) return void (buffered += chunk.toString('utf8'))
          buffered += chunk.toString('utf8')
          // Whole SSE events only: a tool call's delta is rewritten as one JSON object.
          let end
          while ((end = buffered.indexOf('\n\n')) >= 0) {
            const event = buffered.slice(0, end)
            buffered = buffered.slice(end + 2)
            const data = event.startsWith('data: ') ? event.slice(6) : undefined
            let parsed: any
            try { parsed = data && data !== '[DONE]' ? JSON.parse(data) : undefined } catch { parsed = undefined }
            res.write(parsed === undefined ? `${event}\n\n` : `data: ${JSON.stringify(answerFromModel(parsed, offered, o))}\n\n`)
          }
        })
        answer.on('end', () => {
          if (sse) return void res.end(buffered)
          let parsed: any
          try { parsed = JSON.parse(buffered) } catch { parsed = undefined }
          res.end(parsed === undefined ? buffered : JSON.stringify(answerFromModel(parsed, offered, o)))
        })
        answer.on('error', () => res.destroy())
      })
      up.on('error', () => res.destroy())
      // The gateway gave up on the answer (an interrupt, a hanging scenario): so does the proxy.
      res.on('close', () => { if (!res.writableFinished) up.destroy() })
      up.end(out)
    } catch {
      res.destroy()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    }),
  }
}
