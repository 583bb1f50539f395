/**
 * Plays one scenario as one app-server turn (reference §6-§10): agentMessage items with deltas,
 * commandExecution and fileChange items that ask through server requests when the thread's
 * sandbox and approval policy say so (or are reviewed under `auto_review`), token usage, and a
 * terminal `turn/completed`. Steps this engine cannot express are listed in scenarios/README.md.
 * Adjacent text steps are one agentMessage in several deltas, as a model writes one answer (and
 * as the fake Responses API and the provider fake play them): `hello` is "Hello, world!".
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { withModel, withToolResult, type Step } from '../scenario/format.ts'
import { forget, notify, request } from './wire.ts'

export interface TurnSettings {
  /** `readOnly` | `workspaceWrite` | `dangerFullAccess` */
  sandbox: string
  approvalPolicy: unknown
  approvalsReviewer: string
}

export interface TurnHost {
  threadId: string
  turnId: string
  cwd: string
  settings: TurnSettings
  /** The model this turn runs on: the one turn/start (or an earlier turn/start, thread/start) named. */
  model?: string
  signal: AbortSignal
  /** Server requests still unanswered: interrupt settles them with `serverRequest/resolved`. */
  pending: Set<number>
}

export interface TurnEnd {
  status: 'completed' | 'interrupted' | 'failed'
  items: Record<string, unknown>[]
  error: { message: string } | null
}

class Interrupted extends Error {}

const DEFAULT_USAGE = { input: 100, output: 10, cacheRead: 0, cacheCreation: 0 }
/** Steps that add no item, so an agentMessage being written before them goes on after them. */
const CONTINUES_TEXT = new Set<Step['type']>(['text', 'usage', 'cost', 'sleep', 'context_usage', 'rate_limit'])
export const CONTEXT_WINDOW = 258_400

export async function playTurn(steps: Step[], host: TurnHost): Promise<TurnEnd> {
  const items: Record<string, unknown>[] = []
  const base = { threadId: host.threadId, turnId: host.turnId }
  let toolResult = ''
  let n = 0
  let usage: typeof DEFAULT_USAGE | undefined
  const pause = (ms: number | undefined) => new Promise<void>((resolve, reject) => {
    if (host.signal.aborted) return reject(new Interrupted())
    const timer = ms === undefined ? undefined : setTimeout(resolve, ms)
    host.signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Interrupted()) }, { once: true })
  })
  const started = (item: Record<string, unknown>) => notify('item/started', { ...base, item, startedAtMs: Date.now() })
  const completed = (item: Record<string, unknown>) => {
    items.push(item)
    notify('item/completed', { ...base, item, completedAtMs: Date.now() })
  }
  let message: { id: string; text: string } | undefined
  const endMessage = () => {
    if (message) completed({ type: 'agentMessage', id: message.id, text: message.text, phase: null })
    message = undefined
  }
  /** Asks the client and returns its answer; an interrupt while asking ends the turn. */
  const askFor = async (method: string, params: Record<string, unknown>): Promise<Record<string, unknown> | undefined> => {
    const { id, answer } = request(method, { ...base, ...params, startedAtMs: Date.now() })
    host.pending.add(id)
    const result = await Promise.race([answer, pause(undefined).then(() => undefined)]).catch(() => undefined)
    // Interrupted: the request stays pending; the turn's end settles it after turn/completed.
    if (host.signal.aborted) {
      forget(id)
      throw new Interrupted()
    }
    host.pending.delete(id)
    notify('serverRequest/resolved', { threadId: host.threadId, requestId: id })
    return result as Record<string, unknown> | undefined
  }
  const ask = async (method: string, params: Record<string, unknown>): Promise<string> => {
    const decision = (await askFor(method, params))?.decision
    return typeof decision === 'string' ? decision : 'decline'
  }
  /** `auto_review`: codex's own reviewer decides; no server request (reference §8). */
  const review = (itemId: string, action: Record<string, unknown>) => {
    const reviewId = `review_${itemId}`
    notify('item/autoApprovalReview/started', { ...base, reviewId, targetItemId: itemId, review: { status: 'inProgress', riskLevel: null, rationale: null }, action })
    notify('item/autoApprovalReview/completed', { ...base, reviewId, targetItemId: itemId, review: { status: 'approved', riskLevel: 'low', rationale: 'fake reviewer approves' }, action })
  }
  const mayAsk = host.settings.approvalPolicy !== 'never' && host.settings.sandbox !== 'dangerFullAccess'

  try {
    for (const step of steps) {
      if (host.signal.aborted) throw new Interrupted()
      if (!CONTINUES_TEXT.has(step.type)) endMessage()
      switch (step.type) {
        case 'text': {
          const text = withModel(withToolResult(step.text, toolResult), host.model)
          if (!message) {
            message = { id: `msg_${++n}`, text: '' }
            started({ type: 'agentMessage', id: message.id, text: '', phase: null })
          }
          const size = step.chunkSize ?? 16
          for (let i = 0; i < text.length; i += size) notify('item/agentMessage/delta', { ...base, itemId: message.id, delta: text.slice(i, i + size) })
          message.text += text
          break
        }
        case 'usage':
          usage = { input: step.input, output: step.output, cacheRead: step.cacheRead ?? 0, cacheCreation: step.cacheCreation ?? 0 }
          break
        case 'sleep':
          await pause(step.ms)
          break
        case 'hang':
          await pause(undefined)
          break
        case 'crash':
          process.stderr.write('fake codex: crashing mid-turn as the scenario asks\n')
          process.exit(1)
          break
        case 'fail':
          notify('error', { ...base, willRetry: false, error: { message: step.message, codexErrorInfo: 'other', additionalDetails: null } })
          return { status: 'failed', items, error: { message: step.message } }
        case 'rate_limit':
          notify('account/rateLimits/updated', { rateLimits: { limitId: 'codex', primary: { usedPercent: Math.round((step.utilization ?? 0) * 100), windowDurationMins: 300, resetsAt: Math.floor(Date.now() / 1000) + 3600 }, secondary: null, planType: null, rateLimitReachedType: step.status === 'rejected' ? 'primary' : null } })
          break
        case 'tool': {
          const command = typeof step.input.command === 'string' ? step.input.command : undefined
          if (!command) {
            // The model named a tool codex does not have: it sees an error, no item appears.
            toolResult = `unsupported call: ${step.name}`
            break
          }
          toolResult = await runCommand(command)
          break
        }
        case 'produce_file':
          toolResult = await changeFile(step.path, step.content)
          break
        case 'question': {
          // codex's own question channel (experimental; the real binary asks it in plan mode): the answer is the tool result.
          const id = `call_${++n}`
          const answered = await askFor('item/tool/requestUserInput', {
            itemId: id, isBlocking: true,
            questions: [{ id: 'q1', header: 'Question', question: step.question, isOther: false, isSecret: false, options: (step.options ?? []).map((label) => ({ label, description: '' })) }],
          })
          toolResult = `User answered: ${JSON.stringify((answered?.answers as Record<string, unknown> | undefined) ?? {})}`
          break
        }
        case 'subagent': {
          // A sub-agent is a thread of its own on the same connection; only its threadId tells it apart (engine-facts §Codex).
          const id = `call_${++n}`
          const child = `${host.threadId}-sub-${n}`
          const item = { type: 'collabAgentToolCall', id, tool: 'spawnAgent', status: 'inProgress', senderThreadId: host.threadId, receiverThreadIds: [child], prompt: step.prompt }
          started(item)
          const sub = { threadId: child, turnId: `${host.turnId}-sub-${n}` }
          notify('turn/started', { threadId: child, turn: { id: sub.turnId, status: 'inProgress', items: [], error: null } })
          notify('item/started', { ...sub, item: { type: 'agentMessage', id: 'msg_1', text: '', phase: null }, startedAtMs: Date.now() })
          notify('item/agentMessage/delta', { ...sub, itemId: 'msg_1', delta: step.text })
          notify('item/completed', { ...sub, item: { type: 'agentMessage', id: 'msg_1', text: step.text, phase: null }, completedAtMs: Date.now() })
          // The child's own completion arrives before the parent's turn ends; it must not end it.
          notify('turn/completed', { threadId: child, turn: { id: sub.turnId, status: 'completed', items: [], error: null } })
          completed({ ...item, status: 'completed' })
          toolResult = step.text
          break
        }
        case 'elicitation': {
          const answered = await askFor('mcpServer/elicitation/request', { serverName: step.server, message: step.message, mode: 'form', requestedSchema: step.schema ?? { type: 'object', properties: {} } })
          toolResult = `Elicitation ${String(answered?.action ?? 'decline')}: ${JSON.stringify(answered?.content ?? null)}`
          break
        }
        default:
          // deferred, bridge, deliver_file, cost, context_usage: no app-server form.
          toolResult = `unsupported call: ${step.type}`
      }
    }
    endMessage()
    const u = usage ?? DEFAULT_USAGE
    const last = { inputTokens: u.input + u.cacheRead, cachedInputTokens: u.cacheRead, cacheWriteInputTokens: u.cacheCreation, outputTokens: u.output, reasoningOutputTokens: 0, totalTokens: u.input + u.cacheRead + u.output }
    notify('thread/tokenUsage/updated', { ...base, tokenUsage: { total: last, last, modelContextWindow: CONTEXT_WINDOW } })
    return { status: 'completed', items, error: null }
  } catch (err) {
    if (err instanceof Interrupted) {
      endMessage()
      return { status: 'interrupted', items, error: null }
    }
    throw err
  }

  async function runCommand(command: string): Promise<string> {
    const id = `call_${++n}`
    const item = { type: 'commandExecution', id, command: `/bin/bash -lc ${quote(command)}`, cwd: host.cwd, processId: null, source: 'agent', status: 'inProgress', commandActions: [], aggregatedOutput: null, exitCode: null, durationMs: null }
    started(item)
    if (host.settings.approvalsReviewer === 'auto_review' && mayAsk) review(id, { type: 'command', command: item.command, cwd: host.cwd })
    else if (mayAsk) {
      const decision = await ask('item/commandExecution/requestApproval', {
        kind: 'command', itemId: id, environmentId: 'local', reason: 'The command needs to run outside the sandbox', command: item.command, cwd: host.cwd,
        commandActions: [], availableDecisions: ['accept', 'cancel'],
      })
      if (decision === 'cancel') {
        completed({ ...item, status: 'declined' })
        throw new Interrupted()
      }
      if (decision !== 'accept') {
        completed({ ...item, status: 'declined' })
        return 'rejected by user'
      }
    }
    const ran = spawnSync('/bin/sh', ['-c', command], { cwd: host.cwd, encoding: 'utf8', timeout: 30_000 })
    const output = `${ran.stdout ?? ''}${ran.stderr ?? ''}`
    if (output) notify('item/commandExecution/outputDelta', { ...base, itemId: id, delta: output })
    completed({ ...item, status: ran.status === 0 ? 'completed' : 'failed', aggregatedOutput: output, exitCode: ran.status ?? -1, durationMs: 1 })
    return output
  }

  async function changeFile(path: string, content: string): Promise<string> {
    const id = `call_${++n}`
    const absolute = isAbsolute(path) ? path : join(host.cwd, path)
    const item = { type: 'fileChange', id, changes: [{ path: absolute, kind: { type: 'add' }, diff: content }], status: 'inProgress' }
    started(item)
    // A read-only sandbox asks for every patch; a writable one applies in-workspace patches (reference §8).
    if (host.settings.sandbox === 'readOnly' && mayAsk) {
      const decision = await ask('item/fileChange/requestApproval', { itemId: id, reason: null, grantRoot: null })
      if (decision === 'cancel') {
        completed({ ...item, status: 'declined' })
        throw new Interrupted()
      }
      if (decision !== 'accept') {
        completed({ ...item, status: 'declined' })
        return 'patch rejected by user'
      }
    }
    mkdirSync(dirname(absolute), { recursive: true })
    writeFileSync(absolute, content)
    completed({ ...item, status: 'completed' })
    return `Success. Updated the following files:\nA ${absolute}`
  }
}

function quote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`
}
