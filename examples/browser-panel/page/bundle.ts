/**
 * Bundles the panel's script for the browser with esbuild (already in the toolchain through tsx):
 * agent-session-client and the protocol it carries are compiled in; nothing else may be, since the
 * client has no runtime dependency. Returns the page, the script, and the bundled inputs.
 */
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const HERE = new URL('./', import.meta.url)

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
    // In this repository the package name maps onto client/ (tsconfig paths); installed, it resolves from node_modules.
    tsconfig: fileURLToPath(new URL('../../../tsconfig.json', HERE)),
    logLevel: 'silent',
  })
  return {
    html: await readFile(new URL('index.html', HERE), 'utf8'),
    script: result.outputFiles[0].text,
    inputs: Object.keys(result.metafile.inputs),
  }
}
