/**
 * Where the fake codex app-server is, for the cli_secondary adapter's `codexPath`. Its script is
 * the sibling `main` module with this module's own extension: `.ts` in the repository (run through
 * the tsx loader), `.js` when installed from the conformance kit (plain Node).
 */
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'

const OWN_EXTENSION = extname(fileURLToPath(import.meta.url))

/** The script the adapter spawns (as `codexPath`, with Node as the executable). */
export const FAKE_CODEX_APP_SERVER_PATH = fileURLToPath(new URL(`./main${OWN_EXTENSION}`, import.meta.url))

/** Node arguments that run it: the tsx loader for the TypeScript source, none for compiled JS. */
export const FAKE_CODEX_APP_SERVER_NODE_ARGS: string[] = OWN_EXTENSION === '.ts' ? ['--import', fileURLToPath(import.meta.resolve('tsx'))] : []
