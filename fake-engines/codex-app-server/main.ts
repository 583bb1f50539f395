#!/usr/bin/env node
/**
 * A scripted fake of `codex app-server` 0.169 speaking its real stdio protocol
 * (reference/codex-app-server-protocol.md §10), so the cli_secondary adapter runs exactly as with
 * the real binary. A user message picks a scenario (`scenario:<name>` / inline JSON), anything
 * else echoes. Threads persist under `$CODEX_HOME/sessions/`, so resume works in a new process.
 * `codex login status` is answered too: logged in when `$CODEX_HOME/auth.json` exists.
 */
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, join } from 'node:path'
import { echoScenario, selectScenario } from '../scenario/select.ts'
import { ScenarioError, type Scenario } from '../scenario/format.ts'
import { RolloutStore, type StoredThread } from './store.ts'
import { CONTEXT_WINDOW, playTurn, type TurnSettings } from './turn.ts'
import { notify, readMessages, respond, respondError, type Message } from './wire.ts'
import { exitWithUsageOnHelp } from '../usage.ts'
import { dieIfAskedAt } from '../startup-death.ts'

exitWithUsageOnHelp(process.argv.slice(2), `usage: fake-codex-app-server app-server | login status | --version

A scripted stand-in for codex 0.169: 'app-server' speaks codex app-server's JSON-RPC on stdio, so
the gateway's cli_secondary engine drives it as it drives the real binary. Point
engines.cli_secondary.codexPath (the library: codexPath) at this command. Threads are stored
under CODEX_HOME (default ~/.codex), so thread/resume works in a new process; 'login status'
reports a login when CODEX_HOME/auth.json exists. A user message picks a scenario
(scenario:<name>, or inline JSON); any other text is echoed.

  app-server                serve the app-server protocol on stdin/stdout until end of input
  login status              exit 0 when logged in, 1 with "Not logged in" otherwise
  --version                 print the codex version it stands in for
  --help                    this text`)

const codexHome = process.env.CODEX_HOME || join(homedir(), '.codex')
const [command, sub] = process.argv.slice(2)
if (command === 'login' && sub === 'status') {
  if (existsSync(join(codexHome, 'auth.json'))) {
    process.stdout.write('Logged in using an API key - sk-fake***\n')
    process.exit(0)
  }
  process.stderr.write('Not logged in\n')
  process.exit(1)
}
if (command === '--version') {
  process.stdout.write('codex-cli 0.169.0 (fake)\n')
  process.exit(0)
}
if (command !== 'app-server') {
  process.stderr.write(`fake codex: only 'app-server', 'login status' and '--version' are supported\n`)
  process.exit(2)
}

const MODEL = 'fake-codex-model'
const store = new RolloutStore(codexHome)
const SANDBOX_TYPES: Record<string, string> = { 'read-only': 'readOnly', 'workspace-write': 'workspaceWrite', 'danger-full-access': 'dangerFullAccess' }

interface LiveThread {
  stored: StoredThread
  settings: TurnSettings
  model: string
  active?: { turnId: string; abort: AbortController; pending: Set<number>; inputs: unknown[]; started: boolean }
}

const threads = new Map<string, LiveThread>()
let initialized = false
/** Turns this process ran (the FAKE_ENGINE_DIE_AT knob's `first-turn`). */
let turnsHere = 0
let experimental = false

function settingsFrom(params: Message, previous?: TurnSettings): TurnSettings {
  const sandbox = typeof params.sandbox === 'string' ? SANDBOX_TYPES[params.sandbox] : (params.sandboxPolicy as { type?: string } | undefined)?.type
  return {
    sandbox: sandbox ?? previous?.sandbox ?? 'readOnly',
    approvalPolicy: params.approvalPolicy ?? previous?.approvalPolicy ?? 'on-request',
    approvalsReviewer: typeof params.approvalsReviewer === 'string' ? params.approvalsReviewer : previous?.approvalsReviewer ?? 'user',
  }
}

function threadWire(t: LiveThread, withTurns: boolean): Record<string, unknown> {
  const s = t.stored
  return {
    id: s.id, sessionId: s.id, preview: s.preview, ephemeral: false, cwd: s.cwd, createdAt: s.createdAt, updatedAt: s.updatedAt, status: { type: t.active ? 'active' : 'idle' },
    path: s.path, model: t.model, modelProvider: 'fake', name: null, source: 'appServer',
    turns: withTurns ? s.turns.map((turn) => ({ ...turn, itemsView: 'full', startedAt: null, completedAt: null, durationMs: null })) : [],
  }
}

function threadResponse(t: LiveThread, withTurns: boolean): Record<string, unknown> {
  const sandboxPolicy = { type: t.settings.sandbox, ...(t.settings.sandbox === 'readOnly' ? { networkAccess: false } : {}) }
  return {
    thread: threadWire(t, withTurns), model: t.model, modelProvider: 'fake', cwd: t.stored.cwd, approvalPolicy: t.settings.approvalPolicy,
    approvalsReviewer: t.settings.approvalsReviewer, sandbox: sandboxPolicy, reasoningEffort: null,
    ...(withTurns ? { turnsBackwardsCursor: null, itemsBackwardsCursor: null } : {}),
  }
}

/** Granular policies are experimental in 0.169: refused unless `initialize` declared the capability. */
function policyError(params: Message): string | undefined {
  const policy = params.approvalPolicy
  if (typeof policy === 'object' && policy !== null && 'granular' in policy && !experimental) return 'askForApproval.granular requires experimentalApi capability'
  // An enum on the real server (`user` | `auto_review` | …, reference §5): serde refuses a value
  // that names no variant, as it refuses an unknown method. Only a value no variant can have is
  // refused here, so a gateway sending a variant this fake does not play is not blamed.
  const reviewer = params.approvalsReviewer
  if (reviewer !== undefined && (typeof reviewer !== 'string' || !/^[a-z][a-z_]*$/.test(reviewer))) return `Invalid request: unknown variant \`${String(reviewer)}\`, expected one of \`user\`, \`auto_review\``
  return undefined
}

function textOf(input: unknown): string {
  if (!Array.isArray(input)) return ''
  return input.filter((i) => i?.type === 'text').map((i) => String(i.text)).join('\n')
}

/** What the echo says about `localImage` inputs, so a test sees the image reached codex as a readable file. */
function imagesOf(input: unknown): string {
  if (!Array.isArray(input)) return ''
  return input.filter((i) => i?.type === 'localImage').map((i) => ` [localImage ${basename(String(i.path))}${existsSync(String(i.path)) ? '' : ' missing'}]`).join('')
}

function handle(m: Message): void {
  const id = m.id
  const params = (m.params ?? {}) as Message
  const isRequest = id !== undefined && id !== null
  if (m.method === 'initialized') return
  if (m.method === 'initialize') {
    dieIfAskedAt('initialize')
    if (initialized) return respondError(id, -32600, 'Already initialized')
    initialized = true
    experimental = (params.capabilities as { experimentalApi?: boolean } | null)?.experimentalApi === true
    respond(id, { userAgent: 'fake-codex/0.169.0', codexHome, platformFamily: 'unix', platformOs: 'linux' })
    return dieIfAskedAt('initialized')
  }
  if (!isRequest) return
  if (!initialized) return respondError(id, -32600, 'Not initialized')
  const refused = policyError(params)
  if (refused) return respondError(id, -32600, refused)
  switch (m.method) {
    case 'thread/start': {
      const stored = store.create(randomUUID(), typeof params.cwd === 'string' ? params.cwd : process.cwd(), typeof params.model === 'string' ? params.model : MODEL)
      const t: LiveThread = { stored, settings: settingsFrom(params), model: stored.model }
      threads.set(stored.id, t)
      respond(id, threadResponse(t, false))
      notify('thread/started', { thread: threadWire(t, false) })
      return dieIfAskedAt('resumed')
    }
    case 'thread/resume': {
      const threadId = String(params.threadId)
      const stored = threads.get(threadId)?.stored ?? store.load(threadId)
      if (!stored) return respondError(id, -32600, `no rollout found for thread id ${threadId}`)
      const t: LiveThread = threads.get(threadId) ?? { stored, settings: settingsFrom(params), model: typeof params.model === 'string' ? params.model : stored.model }
      if (typeof params.cwd === 'string') stored.cwd = params.cwd
      threads.set(threadId, t)
      respond(id, threadResponse(t, true))
      // The real server re-sends the last turn's usage under that turn's id (reference §9).
      const last = stored.turns.at(-1)
      if (last) {
        const zero = { inputTokens: 100, cachedInputTokens: 0, cacheWriteInputTokens: 0, outputTokens: 10, reasoningOutputTokens: 0, totalTokens: 110 }
        notify('thread/tokenUsage/updated', { threadId, turnId: last.id, tokenUsage: { total: zero, last: zero, modelContextWindow: CONTEXT_WINDOW } })
      }
      return dieIfAskedAt('resumed')
    }
    case 'thread/list':
      return respond(id, listThreads(params))
    case 'thread/read': {
      const t = threads.get(String(params.threadId))
      const stored = t?.stored ?? store.load(String(params.threadId))
      if (!stored) return respondError(id, -32600, `thread not found: ${String(params.threadId)}`)
      return respond(id, { thread: threadWire(t ?? { stored, settings: settingsFrom({}), model: stored.model }, params.includeTurns === true) })
    }
    case 'turn/start':
      return startTurn(id, params)
    case 'turn/interrupt': {
      const t = threads.get(String(params.threadId))
      if (!t) return respondError(id, -32600, `thread not found: ${String(params.threadId)}`)
      // As the real server: no interrupt before the turn has started (`turn/started` sent).
      if (!t.active?.started || t.active.turnId !== params.turnId) return respondError(id, -32600, 'no active turn to interrupt')
      respond(id, {})
      t.active.abort.abort()
      return
    }
    case 'mcpServerStatus/list':
      // One server from config.toml, so the gateway's mapping is observable; `env` must never leave the gateway.
      return respond(id, { data: [{ name: 'docs', tools: { lookup: { name: 'lookup', inputSchema: { type: 'object' } } }, resources: [], resourceTemplates: [], authStatus: 'unsupported', env: { TOKEN: 'never-shown' } }], nextCursor: null })
    case 'skills/list':
    case 'model/list':
      return respond(id, { data: [], nextCursor: null })
    default:
      return respondError(id, -32601, `Invalid request: unknown variant \`${String(m.method)}\``)
  }
}

function listThreads(params: Message): Record<string, unknown> {
  const cwds = params.cwd === undefined || params.cwd === null ? undefined : ([] as unknown[]).concat(params.cwd).map(String)
  const key = params.sortKey === 'updated_at' || params.sortKey === 'recency_at' ? 'updatedAt' : 'createdAt'
  const rows = store.all().filter((t) => !cwds || cwds.includes(t.cwd)).sort((a, b) => b[key] - a[key])
  const offset = typeof params.cursor === 'string' ? Number(params.cursor) || 0 : 0
  const limit = typeof params.limit === 'number' && params.limit > 0 ? params.limit : 25
  const page = rows.slice(offset, offset + limit)
  const nextCursor = offset + limit < rows.length ? String(offset + limit) : null
  const data = page.map((s) => threadWire({ stored: s, settings: settingsFrom({}), model: s.model }, false)).map((row) => ({ ...row, status: { type: 'notLoaded' } }))
  return { data, nextCursor, backwardsCursor: null }
}

function startTurn(id: unknown, params: Message): void {
  const t = threads.get(String(params.threadId))
  if (!t) return respondError(id, -32600, `thread not found: ${String(params.threadId)}`)
  // Overrides persist to later turns (reference §5).
  t.settings = settingsFrom(params, t.settings)
  if (typeof params.model === 'string') t.model = params.model
  if (typeof params.cwd === 'string') t.stored.cwd = params.cwd
  if (t.active) {
    // A turn/start on an active turn steers it: the input joins that turn (reference §5).
    t.active.inputs.push(...((params.input as unknown[]) ?? []))
    return respond(id, { turn: { id: t.active.turnId, status: 'inProgress', items: [], itemsView: 'notLoaded', error: null, startedAt: null, completedAt: null, durationMs: null } })
  }
  const turnId = randomUUID()
  const input = (params.input as unknown[]) ?? []
  const text = textOf(input)
  let scenario: Scenario
  try {
    scenario = selectScenario(text) ?? echoScenario(`${text}${imagesOf(input)}`)
  } catch (err) {
    if (!(err instanceof ScenarioError)) throw err
    scenario = { name: 'bad', steps: [{ type: 'fail', message: err.message }] }
  }
  // As the real server refuses a turn/start it cannot run (engine-facts, codex: a rejected turn/start): an error answer, no turn.
  if (scenario.steps[0]?.type === 'refuse_turn') return respondError(id, -32600, 'turn/start refused as the scenario asks')
  const active = { turnId, abort: new AbortController(), pending: new Set<number>(), inputs: [] as unknown[], started: false }
  t.active = active
  respond(id, { turn: { id: turnId, status: 'inProgress', items: [], itemsView: 'notLoaded', error: null, startedAt: null, completedAt: null, durationMs: null } })
  setImmediate(() => void runTurn(t, active, input, text, scenario))
}

async function runTurn(t: LiveThread, active: NonNullable<LiveThread['active']>, input: unknown[], text: string, scenario: Scenario): Promise<void> {
  const threadId = t.stored.id
  const base = { threadId, turnId: active.turnId }
  notify('thread/status/changed', { threadId, status: { type: 'active', activeFlags: [] } })
  active.started = true
  notify('turn/started', { threadId, turn: { id: active.turnId, status: 'inProgress', items: [], itemsView: 'notLoaded', error: null, startedAt: Math.floor(Date.now() / 1000), completedAt: null, durationMs: null } })
  if (turnsHere++ === 0) dieIfAskedAt('first-turn')
  const userItem = { type: 'userMessage', id: `user_${active.turnId}`, content: input }
  notify('item/started', { ...base, item: userItem, startedAtMs: Date.now() })
  notify('item/completed', { ...base, item: userItem, completedAtMs: Date.now() })
  const started = Date.now()
  const end = await playTurn(scenario.steps, { threadId, turnId: active.turnId, cwd: t.stored.cwd, settings: t.settings, model: t.model, signal: active.abort.signal, pending: active.pending })
  t.active = undefined
  // Declined tool items are not part of the stored history: 0.169's thread/resume leaves them out (seen in codex-real.test.ts).
  const kept = end.items.filter((i) => i.status !== 'declined')
  store.appendTurn(t.stored, { id: active.turnId, status: end.status, items: [userItem, ...kept], error: end.error }, text.slice(0, 200))
  notify('thread/status/changed', { threadId, status: { type: 'idle', activeFlags: [] } })
  notify('turn/completed', {
    threadId,
    turn: { id: active.turnId, status: end.status, error: end.error ? { ...end.error, codexErrorInfo: 'other', additionalDetails: null } : null, items: end.items.filter((i) => i.type === 'agentMessage').slice(-1), itemsView: 'summary', startedAt: Math.floor(started / 1000), completedAt: Math.floor(Date.now() / 1000), durationMs: Date.now() - started },
  })
  // After an interrupt the server settles what it still asked, after turn/completed (reference §9).
  for (const requestId of active.pending) notify('serverRequest/resolved', { threadId, requestId })
  active.pending.clear()
}

process.on('SIGTERM', () => process.exit(0))
dieIfAskedAt('start')
readMessages((m) => {
  try {
    handle(m)
  } catch (err) {
    process.stderr.write(`fake codex: ${(err as Error).message}\n`)
    if (m.id !== undefined) respondError(m.id, -32603, (err as Error).message)
  }
}, () => process.exit(0))
