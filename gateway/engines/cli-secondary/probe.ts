/**
 * The credential probe (reference §2, §12.1): `codex login status` exits 0 when the profile's
 * CODEX_HOME holds a login, 1 with "Not logged in" on stderr when not. Only the exit code and that
 * fixed string are read: the success line carries a masked key fragment and is never shown.
 */
import { spawn } from 'node:child_process'
import type { ProbeResult } from '../../host/availability.ts'
import type { Launch } from './peer.ts'

export function probeLogin(launch: Launch, timeoutMs: number): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(launch.command, [...launch.args, 'login', 'status'], { env: launch.env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString('utf8')).slice(-500) })
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`codex login status did not finish within ${timeoutMs} ms`)) }, timeoutMs)
    child.on('error', (err) => { clearTimeout(timer); reject(err) })
    child.on('exit', (code) => {
      clearTimeout(timer)
      if (code === 0) return resolve({ available: true })
      if (/not logged in/i.test(stderr)) return resolve({ available: false, reason: 'not logged in: codex login status reports no login in this CODEX_HOME' })
      reject(new Error(`codex login status exited with code ${code}`))
    })
  })
}
