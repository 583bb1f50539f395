/**
 * The credential probe (reference §2, §12.1): a config.toml provider block that needs no OpenAI
 * login is available when its `env_key` variable is set (provider-config.ts); otherwise
 * `codex login status` exits 0 when the profile's
 * CODEX_HOME holds a login, 1 with "Not logged in" on stderr when not. Only the exit code and that
 * fixed string are read: the success line carries a masked key fragment and is never shown.
 */
import { spawn } from 'node:child_process'
import type { ProbeResult } from '../../host/availability.ts'
import type { Launch } from './peer.ts'
import { selectedProvider } from './provider-config.ts'

export async function probeLogin(launch: Launch, timeoutMs: number): Promise<ProbeResult> {
  // A provider block that needs no OpenAI login (the documented config.toml setup) is judged by its key alone.
  const provider = await selectedProvider(launch.env)
  if (provider && !provider.requiresOpenaiAuth) {
    if (!provider.envKey || launch.env[provider.envKey]) return { available: true }
    return { available: false, reason: `no credentials: the model provider '${provider.id}' in config.toml reads its key from ${provider.envKey}, which is not set` }
  }
  return loginStatus(launch, timeoutMs)
}

function loginStatus(launch: Launch, timeoutMs: number): Promise<ProbeResult> {
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
