/**
 * `node --import tsx bench/sdk-retention.ts [ai|fetch] [calls] [-- V8 flags…]`: runs
 * sdk-retention-child.ts in its own process (the fake model server stays here), so what the AI
 * SDK's calls leave behind (heap, resident pages) after an ordinary gc is seen without the gateway.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startFakeModelServer } from '../fake-engines/provider-model/server.ts'

const CHILD = fileURLToPath(new URL('./sdk-retention-child.ts', import.meta.url))
const dash = process.argv.indexOf('--')
const args = dash === -1 ? process.argv.slice(2) : process.argv.slice(2, dash)
const flags = dash === -1 ? [] : process.argv.slice(dash + 1)
const model = await startFakeModelServer()
const child = spawn(process.execPath, [...flags, '--expose-gc', '--import', 'tsx', CHILD, model.baseURL, args[0] ?? 'ai', args[1] ?? '1000'], { stdio: 'inherit' })
await new Promise((r) => child.on('exit', r))
await model.close()
