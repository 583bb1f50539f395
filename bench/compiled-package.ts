/**
 * The compiled gateway package the operator rows run (`packages/gateway/dist`), never older than
 * the sources: a row measured on a stale build measures code that is no longer there, and nothing
 * in its output would say so.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
export const COMPILED_BIN = join(ROOT, 'packages/gateway/dist/gateway/bin.js')
/** What the package compiles: its sources, the scripts that build it and its manifest. */
const INPUTS = ['gateway', 'scripts/build-package.mjs', 'packages/gateway/package.json', 'packages/gateway/tsconfig.build.json']

/** `npm run build --prefix packages/gateway`, in a child process. */
export function buildGatewayPackage(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts/build-package.mjs')], { cwd: join(ROOT, 'packages/gateway'), stdio: ['ignore', 'ignore', 'inherit'] })
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`building packages/gateway exited ${code}`))))
  })
}

/** True when a source of the package changed after its last build (or it was never built). */
export function compiledPackageStale(): boolean {
  if (!existsSync(COMPILED_BIN)) return true
  const built = statSync(COMPILED_BIN).mtimeMs
  return INPUTS.some((input) => newestMtime(join(ROOT, input)) > built)
}

let building: Promise<void> | undefined

/** Builds the package when a source is newer than its build; once per process at most. */
export function ensureCompiledPackage(): Promise<void> {
  building ??= compiledPackageStale() ? buildGatewayPackage() : Promise.resolve()
  return building
}

function newestMtime(path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue
    newest = Math.max(newest, newestMtime(join(path, entry.name)))
  }
  return newest
}
