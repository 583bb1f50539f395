/**
 * The browser panel: agent-session-client on the page's own origin (`baseUrl: '/v1'`, no token:
 * the login cookie is the credential). It owns the session's single attach (rule 11), renders the
 * transcript from the client's reducer, answers permission requests, and keeps going through a
 * dropped socket (the client re-attaches from the last seq seen). `?session=<id>` reopens a
 * session; one outside the user's scope answers 404 like an unknown one.
 */
import { emptyTranscript, GatewayClient, GatewayError, reduceTranscript, type SessionHandle, type TranscriptRow, type TranscriptState } from 'agent-session-client'

const client = new GatewayClient({ baseUrl: '/v1' })
const $ = (id: string) => document.getElementById(id)!
let handle: SessionHandle | undefined
let transcript: TranscriptState = emptyTranscript()

async function start(): Promise<void> {
  // The host's own RPC (CSRF-guarded): who is logged in, and where this tenant's sessions run.
  const answer = await fetch('/app/rpc/workspace', { method: 'POST' })
  if (answer.status === 401) {
    $('login').hidden = false
    $('status').textContent = 'logged out'
    return
  }
  const workspace = (await answer.json()) as { user: string; profile: string; cwd: string }
  $('who').textContent = workspace.user
  $('panel').hidden = false
  const requested = new URLSearchParams(location.search).get('session')
  try {
    const session = requested ? await client.getSession(requested) : await client.createSession({ profile: workspace.profile, cwd: workspace.cwd, includePartialMessages: true })
    history.replaceState(null, '', `?session=${encodeURIComponent(session.id)}`)
    handle = await client.attach(session.id, { reconnect: { initialDelayMs: 100 } })
  } catch (err) {
    $('error').textContent = err instanceof GatewayError ? `Session unavailable: ${err.status} ${err.code}` : String(err)
    $('status').textContent = 'no session'
    return
  }
  const attached = handle
  attached.on('state', showStatus)
  attached.on('error', (err) => { $('error').textContent = err.message })
  attached.on('event', (event) => {
    transcript = reduceTranscript(transcript, event)
    const item = document.createElement('li')
    item.dataset.seq = String(event.seq)
    item.textContent = `${event.seq} ${event.type}`
    $('log').append(item)
    render()
  })
  for (const event of attached.events) {
    transcript = reduceTranscript(transcript, event)
  }
  render()
  showStatus()
  $('composer').addEventListener('submit', (e) => {
    e.preventDefault()
    const input = $('prompt') as HTMLInputElement
    if (input.value.trim()) attached.sendMessage(input.value)
    input.value = ''
  })
}

function showStatus(): void {
  if (!handle) return
  const status = $('status')
  status.textContent = `${handle.state} · last seq ${handle.lastSeq} · reconnects ${handle.reconnects}`
  status.dataset.state = handle.state
  status.dataset.reconnects = String(handle.reconnects)
}

function render(): void {
  const rows = transcript.rows.map(renderRow)
  if (transcript.streaming) rows.push(rowOf('assistant streaming', transcript.streaming))
  $('transcript').replaceChildren(...rows)
  showStatus()
}

function rowOf(kind: string, text: string, seq?: number): HTMLElement {
  const div = document.createElement('div')
  div.className = `row ${kind}`
  div.textContent = text
  if (seq !== undefined) div.dataset.seq = String(seq)
  return div
}

function renderRow(row: TranscriptRow): HTMLElement {
  switch (row.kind) {
    case 'user': return rowOf('user', row.text, row.seq)
    case 'assistant': return rowOf('assistant', row.text, row.seq)
    case 'tool_call': {
      const status = row.execution?.status ?? (row.result ? (row.result.isError ? 'failed' : 'done') : 'running')
      return rowOf('tool', `${row.name} ${JSON.stringify(row.input)} — ${status}`, row.seq)
    }
    case 'permission': {
      const { request, resolution } = row
      const div = rowOf(`permission${resolution ? ` ${resolution.behavior}` : ''}`, `${request.toolName} wants to run ${JSON.stringify(request.input)}`, row.seq)
      if (resolution) {
        div.append(`\n${resolution.behavior === 'allow' ? 'Allowed' : 'Denied'} by ${resolution.resolvedBy}${resolution.message ? `: ${resolution.message}` : ''}`)
      } else {
        for (const behavior of ['allow', 'deny'] as const) {
          const button = document.createElement('button')
          button.textContent = behavior === 'allow' ? 'Allow' : 'Deny'
          button.className = behavior
          button.onclick = () => (behavior === 'allow' ? handle?.allow(request) : handle?.deny(request, { message: 'Denied in the panel' }))
          div.append(' ', button)
        }
      }
      return div
    }
    case 'turn_end': return rowOf('turn', `turn ${row.numTurns} ${row.isError ? 'failed' : 'done'}`, row.seq)
    case 'file': return rowOf('file', `file ${row.path}`, row.seq)
    case 'error': return rowOf('error', row.message, row.seq)
    case 'reset': return rowOf('turn', 'conversation cleared', row.seq)
  }
}

void start()
