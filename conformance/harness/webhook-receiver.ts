/**
 * The kit's webhook receiver: a real HTTP server on 127.0.0.1 recording every delivery. A
 * script of status codes lets cases make it fail on purpose (500 twice, then 200).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Delivery {
  at: number
  path: string
  headers: Record<string, string | string[] | undefined>
  body: any
  status: number
}

export class WebhookReceiver {
  readonly deliveries: Delivery[] = []
  #server: Server
  #script: number[] = []
  url = ''

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const status = this.#script.shift() ?? 200
        let body: unknown
        try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch { body = undefined }
        this.deliveries.push({ at: Date.now(), path: req.url ?? '/', headers: req.headers, body, status })
        res.statusCode = status
        res.end()
      })
    })
  }

  async start(port = 0): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(port, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`
    return this.url
  }

  /** The next answers, in order (e.g. [500, 500] then 200s). */
  answerNext(statuses: number[]): void {
    this.#script.push(...statuses)
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve())
      this.#server.closeAllConnections()
    })
  }
}
