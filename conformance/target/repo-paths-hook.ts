/**
 * `node --import` this to run the repository's TypeScript with Node's type stripping and its
 * tsconfig `paths` (repo-paths.ts) resolved, from the working directory's tsconfig.json: the self
 * target starts its gateway this way (self.ts). Node's synchronous in-thread hooks cost nothing
 * per import, where the tsx loader lexes every module (~0.3 s of CPU per gateway start, issue 25).
 */
import { registerHooks } from 'node:module'
import { repoPaths } from './repo-paths.ts'

const mapped = repoPaths(process.cwd()) ?? new Map<string, string>()

registerHooks({
  resolve(specifier, context, nextResolve) {
    const url = mapped.get(specifier)
    return url ? { url, shortCircuit: true } : nextResolve(specifier, context)
  },
})
