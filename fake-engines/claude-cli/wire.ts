/**
 * stream-json framing of the Claude Code CLI (reference/claude-cli-protocol.md §4): one JSON
 * object per line on stdin and stdout. Non-JSON input lines are skipped, as the real CLI does.
 */
import { createInterface } from 'node:readline'

export type Frame = Record<string, unknown> & { type: string }

let tap: ((frame: Frame) => void) | undefined

/** Sees every frame sent (the transcript records messages as they leave). */
export function onSend(listener: (frame: Frame) => void): void {
  tap = listener
}

export function send(frame: Frame): void {
  tap?.(frame)
  process.stdout.write(`${JSON.stringify(frame)}\n`)
}

export function readFrames(onFrame: (frame: Frame) => void, onEnd: () => void): void {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })
  lines.on('line', (line) => {
    if (!line.trim()) return
    let frame: unknown
    try { frame = JSON.parse(line) } catch { return }
    if (typeof frame === 'object' && frame !== null && typeof (frame as Frame).type === 'string') onFrame(frame as Frame)
  })
  lines.on('close', onEnd)
}

/** `--flag=value` and `--flag value` both occur (§2); bare flags are `true`. */
export function parseArgv(argv: string[]): Map<string, string | true> {
  const flags = new Map<string, string | true>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (!arg.startsWith('--')) continue
    const eq = arg.indexOf('=')
    if (eq !== -1) flags.set(arg.slice(2, eq), arg.slice(eq + 1))
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) flags.set(arg.slice(2), argv[++i])
    else flags.set(arg.slice(2), true)
  }
  return flags
}
