/**
 * One mechanism for every test that drives a real engine binary: the package is
 * installed at a pinned version into a cache directory outside the project's dependencies (so
 * `npm ci` stays fast and the repo's `overrides` stubbing the native Claude binary do not apply),
 * once per machine, and each test gets its own HOME / TMPDIR / engine home so runs never share
 * state. A package that cannot be installed is reported with its reason, never silently skipped.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile, readdir } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'

export interface PinnedPackage {
  /** npm package name, e.g. `@openai/codex`. */
  name: string
  /** exact version; never a range, so CI always runs what was measured. */
  version: string
}

export type Installed =
  | { ok: true; dir: string; installMs: number; sizeBytes: number; cached: boolean }
  | { ok: false; reason: string }

/** `$GATEWAY_REAL_BINARY_CACHE`, else `$XDG_CACHE_HOME/agent-session-gateway/real-binaries`, else `~/.cache/...`. */
export function realBinaryCacheRoot(): string {
  if (process.env.GATEWAY_REAL_BINARY_CACHE) return process.env.GATEWAY_REAL_BINARY_CACHE
  const base = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache')
  return join(base, 'agent-session-gateway', 'real-binaries')
}

/**
 * Installs `name@version` (with its optional platform packages) into
 * `<cache>/<name>@<version>/node_modules`, or reuses an earlier complete install. Concurrent
 * callers (vitest forks) serialise on a lock directory.
 */
export async function installPinned(pkg: PinnedPackage, opts: { timeoutMs?: number } = {}): Promise<Installed> {
  const dir = join(realBinaryCacheRoot(), `${pkg.name.replace('/', '__')}@${pkg.version}`)
  const marker = join(dir, '.installed')
  if (existsSync(marker)) {
    const { installMs, sizeBytes } = JSON.parse(await readFile(marker, 'utf8'))
    return { ok: true, dir, installMs, sizeBytes, cached: true }
  }
  await mkdir(dir, { recursive: true })
  const lock = join(dir, '.lock')
  const release = await acquireLock(lock, opts.timeoutMs ?? 600_000)
  try {
    if (existsSync(marker)) {
      const { installMs, sizeBytes } = JSON.parse(await readFile(marker, 'utf8'))
      return { ok: true, dir, installMs, sizeBytes, cached: true }
    }
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'real-binary-cache', private: true }))
    const started = Date.now()
    const result = await run('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--prefer-offline', '--loglevel=error', `${pkg.name}@${pkg.version}`], dir, opts.timeoutMs ?? 600_000)
    if (result.code !== 0) return { ok: false, reason: `npm install ${pkg.name}@${pkg.version} failed (exit ${result.code}): ${result.output.trim().split('\n').slice(-3).join(' | ')}` }
    const installMs = Date.now() - started
    const sizeBytes = await duBytes(join(dir, 'node_modules'))
    await writeFile(marker, JSON.stringify({ installMs, sizeBytes }))
    return { ok: true, dir, installMs, sizeBytes, cached: false }
  } catch (err) {
    return { ok: false, reason: `installing ${pkg.name}@${pkg.version}: ${(err as Error).message}` }
  } finally {
    await release()
  }
}

/** A fresh HOME, TMPDIR and spare directory for one test; `dispose` removes them all. */
export async function isolatedDirs(prefix: string): Promise<{ root: string; home: string; tmp: string; extra(name: string): Promise<string>; dispose(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), `${prefix}-`))
  const home = join(root, 'home')
  const tmp = join(root, 'tmp')
  await mkdir(home)
  await mkdir(tmp)
  return {
    root,
    home,
    tmp,
    async extra(name) {
      const path = join(root, name)
      await mkdir(path, { recursive: true })
      return path
    },
    dispose: () => rm(root, { recursive: true, force: true, maxRetries: 3 }),
  }
}

async function acquireLock(path: string, timeoutMs: number): Promise<() => Promise<void>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await mkdir(path)
      return () => rm(path, { recursive: true, force: true })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      // A lock older than the timeout belongs to a dead installer.
      const age = Date.now() - (await stat(path).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs
      if (age > timeoutMs) await rm(path, { recursive: true, force: true })
      if (Date.now() > deadline) throw new Error(`timed out waiting for install lock ${path}`)
      await new Promise((r) => setTimeout(r, 500))
    }
  }
}

function run(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', (err) => {
      clearTimeout(timer)
      resolve({ code: -1, output: err.message })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

async function duBytes(path: string): Promise<number> {
  let total = 0
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const full = join(path, entry.name)
    if (entry.isDirectory()) total += await duBytes(full)
    else if (entry.isFile()) total += (await stat(full)).size
  }
  return total
}
