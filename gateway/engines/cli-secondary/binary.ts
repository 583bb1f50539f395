/**
 * Where the codex binary is (reference §2, §12.1): the configured `codexPath`, else the native
 * binary of an installed `@openai/codex` resolved in two hops (wrapper, then its platform package,
 * which strict layouts only expose to the wrapper), else `codex` on PATH.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const TRIPLES: Record<string, string> = {
  'linux-x64': 'x86_64-unknown-linux-musl', 'linux-arm64': 'aarch64-unknown-linux-musl',
  'darwin-x64': 'x86_64-apple-darwin', 'darwin-arm64': 'aarch64-apple-darwin',
  'win32-x64': 'x86_64-pc-windows-msvc', 'win32-arm64': 'aarch64-pc-windows-msvc',
}

/** The native binary inside an `@openai/codex` install reachable from `fromDir`, or undefined. */
export function findNpmCodex(fromDir: string): string | undefined {
  const key = `${process.platform}-${process.arch}`
  const triple = TRIPLES[key]
  if (!triple) return undefined
  try {
    const wrapper = createRequire(join(fromDir, 'noop.js')).resolve('@openai/codex/package.json')
    const platformPkg = createRequire(wrapper).resolve(`@openai/codex-${key}/package.json`)
    const bin = join(dirname(platformPkg), 'vendor', triple, 'bin', process.platform === 'win32' ? 'codex.exe' : 'codex')
    return existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
}

export function resolveCodexPath(configured: string | undefined): string {
  return configured ?? findNpmCodex(process.cwd()) ?? 'codex'
}
