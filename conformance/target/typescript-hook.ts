/**
 * `node --import` this to run the repository's TypeScript on Node's own type stripping, with
 * tsconfig's `paths` resolved (repo-paths.ts, from the working directory's tsconfig.json) and
 * each module's stripped output remembered on disk (strip-cache.ts). The self target starts its
 * gateway this way (self.ts). Node's synchronous in-thread hooks cost nothing per import, where
 * the tsx loader lexes every module: a gateway start takes about half the CPU.
 */
import { registerHooks } from 'node:module'
import { fileURLToPath } from 'node:url'
import { repoPaths } from './repo-paths.ts'
import { strippedSource } from './strip-cache.ts'

const mapped = repoPaths(process.cwd()) ?? new Map<string, string>()

registerHooks({
  resolve(specifier, context, nextResolve) {
    const url = mapped.get(specifier)
    return url ? { url, shortCircuit: true } : nextResolve(specifier, context)
  },
  load(url, context, nextLoad) {
    // Only ES modules written in TypeScript; everything else loads as Node loads it.
    if (context.format !== 'module-typescript' || !url.startsWith('file:')) return nextLoad(url, context)
    return { format: 'module', source: strippedSource(fileURLToPath(url)), shortCircuit: true }
  },
})
