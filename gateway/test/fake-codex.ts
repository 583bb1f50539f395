/** The fake codex app-server as the cli_secondary adapter runs it in tests: the kit's fake, run by this Node. */
import { FAKE_CODEX_APP_SERVER_NODE_ARGS, FAKE_CODEX_APP_SERVER_PATH } from '../../fake-engines/codex-app-server/index.ts'
import type { CliSecondaryOptions } from '../engines/cli-secondary/index.ts'

export const FAKE_CODEX: CliSecondaryOptions = {
  codexPath: FAKE_CODEX_APP_SERVER_PATH,
  executable: process.execPath,
  executableArgs: FAKE_CODEX_APP_SERVER_NODE_ARGS,
}
