/**
 * Observing the CLI processes the SDK starts (for lifecycle logs): a `spawnClaudeCodeProcess`
 * that spawns as the SDK's own launcher does (stdio pipes, stderr ignored, the SDK's forwarded
 * abort signal) and reports spawn and exit. The SDK still owns stopping them: end of input, then
 * SIGTERM, then SIGKILL.
 */
import { spawn } from 'node:child_process'
import type { Options } from '@anthropic-ai/claude-agent-sdk'
import { reportProcess, type EngineProcessEvent } from '../process-events.ts'

export type { EngineProcessEvent } from '../process-events.ts'

export function observedSpawner(profile: string, onProcess: (event: EngineProcessEvent) => void): NonNullable<Options['spawnClaudeCodeProcess']> {
  return (options) => {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd, env: options.env as NodeJS.ProcessEnv, signal: options.signal, stdio: ['pipe', 'pipe', 'ignore'], windowsHide: true,
    })
    const report = (event: EngineProcessEvent) => reportProcess(onProcess, event)
    // The SDK stops a CLI by ending its input (then SIGTERM, SIGKILL) or through the abort signal:
    // either one before the exit means the gateway asked for it.
    let requested = false
    child.stdin.once('finish', () => { requested = true })
    options.signal?.addEventListener('abort', () => { requested = true }, { once: true })
    report({ type: 'spawn', pid: child.pid, profile })
    child.once('exit', (code, signal) => report({ type: 'exit', pid: child.pid, profile, code, signal, requested }))
    // An abort through the signal is an expected stop; the SDK reads the exit itself.
    child.on('error', () => undefined)
    return child
  }
}
