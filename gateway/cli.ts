#!/usr/bin/env -S npx tsx
/**
 * The `gateway` command: a composition root that starts the gateway with the fake engines on
 * loopback, bearer-token principals for every role the conformance kit needs, and (optionally)
 * writes the target manifest. Swapping a fake for a real engine is configuration in
 * gateway/dev-config.ts, never code here.
 */
import { mkdtemp, readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startDevGateway, type DevGatewayOptions } from './dev-gateway.ts'

const USAGE = `usage: gateway [--port 8787] [--host 127.0.0.1] [--manifest file.json] [--cwd-root dir]
               [--webhook-url url] [--park-delay-ms n] [--store-dir dir] [--tokens-file f]`

async function readTokens(path: string): Promise<DevGatewayOptions['tokens']> {
  try {
    return JSON.parse(await readFile(path, 'utf8'))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new Error(`cannot read --tokens-file ${path}: ${(err as Error).message}`)
  }
}

async function main(): Promise<void> {
  let values
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string', default: '8787' },
        host: { type: 'string', default: '127.0.0.1' },
        manifest: { type: 'string' },
        'cwd-root': { type: 'string' },
        'webhook-url': { type: 'string' },
        'park-delay-ms': { type: 'string' },
        'store-dir': { type: 'string' },
        'tokens-file': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`)
    process.exit(2)
  }
  if (values.help) {
    console.log(USAGE)
    return
  }
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be an integer from 0 to 65535\n${USAGE}`)
    process.exit(2)
  }
  const options: DevGatewayOptions = {
    port,
    host: values.host,
    cwdRoot: values['cwd-root'] ?? (await mkdtemp(join(tmpdir(), 'gateway-cwd-'))),
    webhookUrl: values['webhook-url'],
    parkDelayMs: values['park-delay-ms'] === undefined ? undefined : Number(values['park-delay-ms']),
    storeDir: values['store-dir'],
    // A restart that must find its sessions again needs the same principals (embedding-rules.15).
    tokens: values['tokens-file'] ? await readTokens(values['tokens-file']) : undefined,
  }
  const dev = await startDevGateway(options)
  if (values['tokens-file'] && !options.tokens) await writeFile(values['tokens-file'], `${JSON.stringify(dev.manifest.tokens)}\n`, { mode: 0o600 })
  if (values.manifest) {
    // Written atomically so a watcher never reads half a manifest.
    const tmp = `${values.manifest}.${process.pid}.tmp`
    await writeFile(tmp, `${JSON.stringify(dev.manifest, null, 2)}\n`, { mode: 0o600 })
    await rename(tmp, values.manifest)
  }
  console.log(`gateway listening on ${dev.manifest.baseUrl}`)
  console.log('authenticate with a bearer token: Authorization: Bearer <token>')
  for (const [who, token] of Object.entries(dev.manifest.tokens)) console.log(`  ${who.padEnd(10)} ${token}`)
  console.log(`profiles: ${Object.values(dev.manifest.profiles).join(', ')}; cwd root ${dev.manifest.cwdRoot}`)
  if (values.manifest) console.log(`manifest written to ${values.manifest}`)
  const stop = async () => {
    await dev.close()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

main().catch((err) => {
  console.error(`gateway failed to start: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})
