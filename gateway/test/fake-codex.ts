/** The fake codex app-server as the cli_secondary adapter runs it in tests: a TypeScript file, run by this Node with tsx. */
import { fileURLToPath } from 'node:url'
import type { CliSecondaryOptions } from '../engines/cli-secondary/index.ts'

export const FAKE_CODEX: CliSecondaryOptions = {
  codexPath: fileURLToPath(new URL('../../fake-engines/codex-app-server/main.ts', import.meta.url)),
  executable: process.execPath,
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}
