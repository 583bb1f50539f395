/**
 * A test knob of the fake CLIs: `FAKE_ENGINE_DIE_AT` names a file holding one moment of a
 * process's start-up. The first fake process to reach that moment while the file exists removes
 * it and exits 1 with a stderr line coloured as real codex colours its log lines, as a real engine
 * that dies while the gateway respawns it. One-shot (the file is gone after), so the next process
 * lives; read by the fakes only, never by the gateway.
 */
import { readFileSync, unlinkSync } from 'node:fs'

/** `start`: before reading any input; `initialize`: asked, not answered; `initialized`: answered;
 * `resumed`: the thread started or resumed (codex); `first-turn`: this process's first turn began. */
export const STARTUP_MOMENTS = ['start', 'initialize', 'initialized', 'resumed', 'first-turn'] as const
export type StartupMoment = (typeof STARTUP_MOMENTS)[number]

export function dieIfAskedAt(moment: StartupMoment): void {
  const file = process.env.FAKE_ENGINE_DIE_AT
  if (!file) return
  let wanted: string
  try {
    wanted = readFileSync(file, 'utf8').trim()
  } catch {
    return
  }
  if (wanted !== moment) return
  try {
    unlinkSync(file)
  } catch {
    return // another process took it
  }
  process.stderr.write(`\x1b[2m${new Date().toISOString()}\x1b[0m \x1b[31mERROR\x1b[0m fake engine: dying at ${moment} as FAKE_ENGINE_DIE_AT asks\n`)
  process.exit(1)
}
