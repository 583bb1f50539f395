/**
 * `node:http` loaded through `require`, not an ESM import. Node builds an ES-module facade for a
 * builtin imported from ESM by reading every export, and `node:http`'s exports include getters
 * (`WebSocket`, `CloseEvent`, `MessageEvent`) that load the whole of undici, the fetch client:
 * ~30-40 ms of CPU at every start for code a gateway without provider sessions never runs
 * (bench/README.md, start row). Through `require` those getters stay untouched until used.
 */
import { createRequire } from 'node:module'

const http = createRequire(import.meta.url)('node:http') as typeof import('node:http')

export const createServer = http.createServer
export const STATUS_CODES = http.STATUS_CODES
