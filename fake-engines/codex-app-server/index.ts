/**
 * Where the fake codex app-server is, for the cli_secondary adapter's `codexPath`. Its script is
 * the sibling `main` module with this module's own extension: `.ts` in the repository (run by
 * Node's own type stripping, or the tsx loader), `.js` when installed from the conformance kit (plain Node).
 */
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'

const OWN_EXTENSION = extname(fileURLToPath(import.meta.url))
/**
 * A compiled copy of the script to run instead, when the environment names one: the conformance
 * kit's self target bundles the source once (conformance/target/fake-cli-bundle.ts), since type
 * stripping the source again costs each of a kit run's ~70 fake CLI starts ~0.1 s of CPU.
 */
const COMPILED = process.env.FAKE_CODEX_APP_SERVER_SCRIPT || undefined

/** The script the adapter spawns (as `codexPath`, with Node as the executable). */
export const FAKE_CODEX_APP_SERVER_PATH = COMPILED ?? fileURLToPath(new URL(`./main${OWN_EXTENSION}`, import.meta.url))

/**
 * Node arguments that run it: none for compiled JS; none for the TypeScript source either on a Node
 * that strips types itself (22.18 and later: the fakes use only erasable syntax and relative `.ts`
 * imports), which starts each fake process in about half the CPU time of the tsx loader (the kit run
 * spawns dozens); the tsx loader on an older Node.
 */
export const FAKE_CODEX_APP_SERVER_NODE_ARGS: string[] = !COMPILED && OWN_EXTENSION === '.ts' && !process.features.typescript ? ['--import', fileURLToPath(import.meta.resolve('tsx'))] : []
