import { GatewayClient, GatewayError, buildTranscript, streamedText } from 'agent-session-client'

// Node: an absolute URL with the route prefix, and a bearer token the gateway's authenticate hook accepts.
const client = new GatewayClient({ baseUrl: process.env.GATEWAY_URL ?? 'http://127.0.0.1:8787/v1', token: process.env.GATEWAY_TOKEN })

// A CLI profile (Claude Code, codex) runs in a working directory, inside the gateway's allowedCwdRoots.
const session = await client.createSession({ profile: process.env.PROFILE, cwd: process.env.SESSION_CWD ?? process.cwd(), includePartialMessages: true })
const handle = await client.attach(session.id) // re-attaches by itself after a drop, from the last seq seen
let streamed = ''
handle.on('event', (event) => {
  if (event.type === 'stream_delta') streamed += streamedText(event.event) ?? '' // live text, as a UI shows it
})

handle.sendMessage(process.argv[2] ?? 'Hello!')
const turn = await handle.waitForTurn({ timeoutMs: 60_000 }) // a wait starts after the last seq seen
const transcript = buildTranscript(handle.events)

try {
  await client.getSession('no-such-session')
} catch (err) {
  if (!(err instanceof GatewayError)) throw err
  console.log(`a missing session: ${err.status} ${err.code}`) // 404 session_not_found
}

console.log(JSON.stringify({ result: turn.result, streamed, rows: transcript.rows.map((row) => row.kind) }))
await client.deleteSession(session.id)
handle.detach()
