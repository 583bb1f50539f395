/** The fake Claude Code CLI as the cli_primary adapter runs it in tests: the kit's fake, run by this Node under tsx. */
import { fileURLToPath } from 'node:url'
import type { CliPrimaryOptions } from '../engines/cli-primary/index.ts'

export const FAKE_CLAUDE: CliPrimaryOptions = {
  pathToClaudeCodeExecutable: fileURLToPath(new URL('../../fake-engines/claude-cli/main.ts', import.meta.url)),
  executable: process.execPath,
  executableArgs: ['--import', fileURLToPath(import.meta.resolve('tsx'))],
}
