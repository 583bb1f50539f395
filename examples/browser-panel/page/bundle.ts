/**
 * Bundles the panel's script for the browser with esbuild (already in the toolchain through tsx):
 * agent-session-client and the protocol it carries are compiled in; nothing else may be, since the
 * client has no runtime dependency. Returns the page, the script, and the bundled inputs.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const HERE = new URL('./', import.meta.url)
const REPOSITORY_TSCONFIG = fileURLToPath(new URL('../../../tsconfig.json', HERE))

export interface PanelPage {
  html: string
  script: string
  /** Source files compiled into the script, relative to the working directory. */
  inputs: string[]
}

export async function bundlePanel(): Promise<PanelPage> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('panel.ts', HERE))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2023',
    write: false,
    metafile: true,
    // In this repository the package name maps onto client/ (tsconfig paths); copied into an app
    // (no such file there), it resolves from the app's node_modules.
    ...(existsSync(REPOSITORY_TSCONFIG) ? { tsconfig: REPOSITORY_TSCONFIG } : {}),
    logLevel: 'silent',
  })
  return {
    html: await readFile(new URL('index.html', HERE), 'utf8'),
    script: result.outputFiles[0].text,
    inputs: Object.keys(result.metafile.inputs),
  }
}
