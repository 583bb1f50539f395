/**
 * agent-session-client for the kit's cases: the same typed client an app uses, with its fetch
 * and WebSocket wrapped so that every request, answer and frame lands in the case's wire log,
 * as the harness's own HTTP and WebSocket clients do.
 */
import { GatewayClient, type FetchLike, type WebSocketFactory, type WebSocketLike } from '../../client/index.ts'
import { globalWebSocket } from '../../client/transport.ts'
import type { Principal } from '../types.ts'
import type { WireLog } from './wire-log.ts'

export function loggedClient(log: WireLog, baseUrl: string, token: string | undefined, who?: Principal): GatewayClient {
  return new GatewayClient({ baseUrl, token, fetch: loggedFetch(log, who), webSocket: loggedWebSocket(log, who) })
}

function loggedFetch(log: WireLog, who?: Principal): FetchLike {
  return async (url, init) => {
    const body = typeof init.body === 'string' ? init.body : init.body ? `<${init.body.byteLength} bytes>` : undefined
    log.add('request', `${init.method} ${url}`, body, who)
    const res = await fetch(url, init as RequestInit)
    const text = await res.text()
    log.add('response', `${res.status} ${init.method} ${new URL(url).pathname}`, text, who)
    // The body was read for the log; the client reads it again from this copy.
    return new Response(text, { status: res.status, headers: res.headers })
  }
}

function loggedWebSocket(log: WireLog, who?: Principal): WebSocketFactory {
  return async (url, headers) => {
    log.add('ws-open', `GET ${url} (upgrade)`, undefined, who)
    const ws = await globalWebSocket(url, headers)
    const logged: WebSocketLike = {
      get readyState() { return ws.readyState },
      onopen: null, onmessage: null, onclose: null, onerror: null,
      send(data) {
        log.add('ws-out', summarise(data), data, who)
        ws.send(data)
      },
      close: (code, reason) => ws.close(code, reason),
    }
    ws.onopen = (event) => logged.onopen?.(event)
    ws.onmessage = (event) => {
      log.add('ws-in', summarise(String(event.data)), String(event.data), who)
      logged.onmessage?.(event)
    }
    ws.onclose = (event) => {
      log.add('ws-close', `closed ${event.code}`, undefined, who)
      logged.onclose?.(event)
    }
    ws.onerror = (event) => {
      if (ws.readyState === 3) log.add('ws-refused', 'upgrade refused or connection failed', undefined, who)
      logged.onerror?.(event)
    }
    return logged
  }
}

function summarise(text: string): string {
  try {
    const frame = JSON.parse(text)
    if (!frame || typeof frame !== 'object') return 'non-object'
    return frame.type === 'event' ? `event:${frame.event?.type}` : String(frame.type)
  } catch {
    return 'non-JSON'
  }
}
