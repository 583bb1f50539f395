/**
 * What the gateway learns about the engine processes it starts (a Claude Code CLI, a codex
 * app-server) for sessions: spawn and exit, for lifecycle logs, metrics and signalling on
 * shutdown. Short-lived helpers (login probes, listings) are not reported. An observer never
 * breaks a session, so every report is guarded.
 */
export type EngineProcessEvent =
  | { type: 'spawn'; pid: number | undefined; profile: string }
  /**
   * `requested`: the gateway asked the process to end (its input closed, or a kill of ours) before
   * it exited, so it is no death whatever its exit code (a Claude CLI ends 1 after an interrupted turn).
   */
  | { type: 'exit'; pid: number | undefined; profile: string; code: number | null; signal: NodeJS.Signals | null; requested: boolean }

export type EngineProcessObserver = (event: EngineProcessEvent) => void

export function reportProcess(observer: EngineProcessObserver | undefined, event: EngineProcessEvent): void {
  if (!observer) return
  try { observer(event) } catch { /* an observer never breaks a session */ }
}
