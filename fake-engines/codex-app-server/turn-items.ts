/**
 * The two tool items the fake runs for real: `commandExecution` (a shell command) and
 * `fileChange` (a patch), each asking first when the thread's sandbox and approval policy say so,
 * or reviewed under `auto_review` (reference §8). A `cancel` ends the turn; any other refusal is
 * the model's tool result.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { Interrupted, type TurnState } from './turn-state.ts'
import { notify } from './wire.ts'

export async function runCommand(turn: TurnState, command: string): Promise<string> {
  const { host, base } = turn
  const id = `call_${turn.nextNumber()}`
  const item = { type: 'commandExecution', id, command: `/bin/bash -lc ${quote(command)}`, cwd: host.cwd, processId: null, source: 'agent', status: 'inProgress', commandActions: [], aggregatedOutput: null, exitCode: null, durationMs: null }
  turn.started(item)
  if (host.settings.approvalsReviewer === 'auto_review' && turn.mayAsk) turn.review(id, { type: 'command', command: item.command, cwd: host.cwd })
  else if (turn.mayAsk) {
    const decision = await turn.ask('item/commandExecution/requestApproval', {
      kind: 'command', itemId: id, environmentId: 'local', reason: 'The command needs to run outside the sandbox', command: item.command, cwd: host.cwd,
      commandActions: [], availableDecisions: ['accept', 'cancel'],
    })
    const refused = settleRefusal(turn, item, decision, 'rejected by user')
    if (refused !== undefined) return refused
  }
  const ran = spawnSync('/bin/sh', ['-c', command], { cwd: host.cwd, encoding: 'utf8', timeout: 30_000 })
  const output = `${ran.stdout ?? ''}${ran.stderr ?? ''}`
  if (output) notify('item/commandExecution/outputDelta', { ...base, itemId: id, delta: output })
  turn.completed({ ...item, status: ran.status === 0 ? 'completed' : 'failed', aggregatedOutput: output, exitCode: ran.status ?? -1, durationMs: 1 })
  return output
}

export async function changeFile(turn: TurnState, path: string, content: string): Promise<string> {
  const { host } = turn
  const id = `call_${turn.nextNumber()}`
  const absolute = isAbsolute(path) ? path : join(host.cwd, path)
  const item = { type: 'fileChange', id, changes: [{ path: absolute, kind: { type: 'add' }, diff: content }], status: 'inProgress' }
  turn.started(item)
  // A read-only sandbox asks for every patch; a writable one applies in-workspace patches (reference §8).
  if (host.settings.sandbox === 'readOnly' && turn.mayAsk) {
    const decision = await turn.ask('item/fileChange/requestApproval', { itemId: id, reason: null, grantRoot: null })
    const refused = settleRefusal(turn, item, decision, 'patch rejected by user')
    if (refused !== undefined) return refused
  }
  mkdirSync(dirname(absolute), { recursive: true })
  writeFileSync(absolute, content)
  turn.completed({ ...item, status: 'completed' })
  return `Success. Updated the following files:\nA ${absolute}`
}

/** A decision other than `accept` declines the item: `cancel` ends the turn, others answer `rejected`. */
function settleRefusal(turn: TurnState, item: Record<string, unknown>, decision: string, rejected: string): string | undefined {
  if (decision === 'accept') return undefined
  turn.completed({ ...item, status: 'declined' })
  if (decision === 'cancel') throw new Interrupted()
  return rejected
}

function quote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`
}
