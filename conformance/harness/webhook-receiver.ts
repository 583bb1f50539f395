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
  #scripts = new Map<string, number[]>()
  #matching: Array<{ path: string; match: (body: any) => boolean; statuses: number[] }> = []
  #handedOut = new Set<string>()
  url = ''

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const path = req.url ?? '/'
        let body: unknown
        try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')) } catch { body = undefined }
        const status = this.#scriptedFor(path, body) ?? this.#scripts.get(path)?.shift() ?? 200
        this.deliveries.push({ at: Date.now(), path, headers: req.headers, body, status })
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

  /** The next answers to deliveries on `path`, in order (e.g. [500, 500], then 200s). */
  answerNext(path: string, statuses: number[]): void {
    this.#scripts.set(path, [...(this.#scripts.get(path) ?? []), ...statuses])
  }

  /**
   * The next answers to deliveries on `path` whose body `match`es: for a webhook every case shares
   * (notifications go to one configured URL), so one case scripts only its own session's deliveries.
   */
  answerNextWhere(path: string, match: (body: any) => boolean, statuses: number[]): void {
    this.#matching.push({ path, match, statuses: [...statuses] })
  }

  #scriptedFor(path: string, body: unknown): number | undefined {
    const script = this.#matching.find((s) => s.path === path && s.statuses.length > 0 && s.match(body))
    return script?.statuses.shift()
  }

  /**
   * A path of its own for one case, so concurrent cases never see each other's deliveries. A name
   * handed out before (the same seed run twice against one receiver) gets a fresh suffix, so a run
   * never reads the deliveries of the run before it.
   */
  urlFor(name: string): { url: string; path: string } {
    let path = `/hook/${encodeURIComponent(name)}`
    for (let n = 2; this.#handedOut.has(path); n++) path = `/hook/${encodeURIComponent(name)}~${n}`
    this.#handedOut.add(path)
    return { url: this.url.replace(/\/hook$/, path), path }
  }

  received(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path && d.status >= 200 && d.status < 300)
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve())
      this.#server.closeAllConnections()
    })
  }
}
