// Builds one publishable package (run from packages/<name>, as its `build` and `prepack` scripts
// do): a clean dist/, tsc over its tsconfig.build.json, `.ts` specifiers rewritten to `.js` in the
// declarations (tsc's rewriteRelativeImportExtensions rewrites only the JavaScript), and the data
// files the code reads at run time, at the same place relative to the code as in the repository.
import { execFileSync } from 'node:child_process'
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, join, relative } from 'node:path'

const ROOT = new URL('../', import.meta.url).pathname
const pkgDir = process.cwd()
const name = basename(pkgDir)
const DATA = {
  gateway: ['gateway/config/gateway-config.schema.json'],
  conformance: ['scenarios', 'conformance/spec/clauses.json', 'conformance/exclusions.json', 'conformance/target/manifest.schema.json'],
  client: [],
}
if (!(name in DATA)) throw new Error(`build-package: unknown package directory ${pkgDir}`)

const dist = join(pkgDir, 'dist')
rmSync(dist, { recursive: true, force: true })
const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc')
execFileSync(process.execPath, [tsc, '-p', join(pkgDir, 'tsconfig.build.json')], { stdio: 'inherit' })

const SPECIFIER = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]*?)\.ts(['"])/g
for (const file of walk(dist)) {
  if (!file.endsWith('.d.ts')) continue
  const text = readFileSync(file, 'utf8')
  const fixed = text.replace(SPECIFIER, '$1$2.js$3')
  if (fixed !== text) writeFileSync(file, fixed)
}
for (const data of DATA[name]) cpSync(join(ROOT, data), join(dist, data), { recursive: true, filter: (src) => !src.endsWith('.md') })

// The gateway's command: its own modules bundled into one entry and a few chunks.
if (name === 'gateway') await bundleGatewayBin()

// The kit and the client share the wire types with the gateway by compiling gateway/protocol/, and nothing else of it.
if (name === 'conformance' || name === 'client') {
  const stray = walk(join(dist, 'gateway')).map((f) => relative(dist, f)).filter((f) => !f.startsWith('gateway/protocol/'))
  if (stray.length) throw new Error(`the ${name} build pulled in gateway modules beyond gateway/protocol/: ${stray.join(', ')}`)
}

/**
 * `gateway` (the package's bin, also its `./cli` export) starts by loading ~120 of the gateway's
 * own modules before it listens, and resolving, reading and linking each costs more than compiling
 * it (bench row f). esbuild bundles them, from the same sources tsc compiled, over tsc's
 * dist/gateway/bin.js: the entry, plus chunks in dist/gateway/bin-chunks/ for what the command
 * imports lazily (each command, the engines). Every package stays external, resolved from the
 * installed node_modules as before: pino keeps its worker-thread transports, the engine SDKs and
 * zod stay the one copy the library entry points share. The library's modules (dist/gateway/**)
 * and their declarations are tsc's, unchanged; file-relative reads still find what they need
 * (package.json is found by walking up from the chunk; the configuration schema file is read
 * only by tests). The chunks are in dist/, so `files` ships them.
 */
/**
 * Every package is external except zod where the command's start imports it (the configuration and
 * request schemas, imported as `import * as z` so that esbuild keeps only what they use: zod's
 * classic API re-exports all 60 of its locales and the JSON Schema tooling, and evaluating that at
 * start was ≈ 30 ms of CPU where the used part bundled is ≈ 12). The engines keep importing the
 * installed zod, the copy their SDKs share, so no schema crosses between the two copies; zod keeps
 * its registry and configuration on globalThis, shared by both anyway.
 */
function externalPackagesButStartZod() {
  return {
    name: 'external-packages-but-start-zod',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        const zod = args.path === 'zod' || args.path.startsWith('zod/')
        const fromEngine = /[\\/]gateway[\\/]engines[\\/]/.test(args.importer)
        return zod && !fromEngine ? undefined : { external: true }
      })
    },
  }
}

async function bundleGatewayBin() {
  const { build } = await import('esbuild')
  rmSync(join(dist, 'gateway/bin-chunks'), { recursive: true, force: true })
  await build({
    entryPoints: { bin: join(ROOT, 'gateway/bin.ts') },
    outdir: join(dist, 'gateway'),
    chunkNames: 'bin-chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    plugins: [externalPackagesButStartZod()],
    // No maps, as tsc writes none (tsconfig.build.json): the sources they would name are not shipped.
    sourcemap: false,
    allowOverwrite: true,
    logLevel: 'warning',
  })
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}
