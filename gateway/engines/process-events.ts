/**
 * What the gateway learns about the engine processes it starts (a Claude Code CLI, a codex
 * app-server): spawn and exit, for lifecycle logs, metrics and signalling on shutdown. An
 * observer never breaks a session, so every report is guarded.
 */
export type EngineProcessEvent =
  | { type: 'spawn'; pid: number | undefined; profile: string }
  | { type: 'exit'; pid: number | undefined; profile: string; code: number | null; signal: NodeJS.Signals | null }

export type EngineProcessObserver = (event: EngineProcessEvent) => void

export function reportProcess(observer: EngineProcessObserver | undefined, event: EngineProcessEvent): void {
  if (!observer) return
  try { observer(event) } catch { /* an observer never breaks a session */ }
}
