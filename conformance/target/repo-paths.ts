/**
 * The repository's tsconfig `paths` as exact specifier -> file URL, so that the gateway's
 * TypeScript source can run on Node's own type stripping (typescript-hook.ts) rather than the tsx
 * loader: `gateway dev` imports the kit's fakes as `gateway-conformance/fakes/*`, which only
 * tsconfig maps onto fake-engines/ in the repository. Whole-line `//` comments are the only
 * comments tsconfig.json holds; anything else it cannot read means no mapping (undefined), and the
 * caller keeps tsx.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export function repoPaths(root: string): Map<string, string> | undefined {
  const file = join(root, 'tsconfig.json')
  try {
    const config = JSON.parse(readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, ''))
    const paths: Record<string, unknown> = config?.compilerOptions?.paths ?? {}
    const mapped = new Map<string, string>()
    for (const [specifier, targets] of Object.entries(paths)) {
      // Wildcard patterns are tsx's business; the gateway's specifiers are exact.
      if (specifier.includes('*') || !Array.isArray(targets) || typeof targets[0] !== 'string') continue
      mapped.set(specifier, new URL(targets[0], pathToFileURL(file)).href)
    }
    return mapped
  } catch {
    return undefined
  }
}
