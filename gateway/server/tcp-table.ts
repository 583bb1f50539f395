/**
 * Linux's view of the TCP sockets on one local port, read from /proc/net/tcp and /proc/net/tcp6:
 * what listener-stop.ts needs to tell whether a client is somewhere between its handshake and our
 * accept. Each line there is one socket: a listener (state 0A, its `rx_queue` the number of
 * connections the kernel completed that the process has not accepted), a handshake in progress
 * (03, SYN_RECV: the SYN was answered, its last ACK not yet taken in), or a connection (01
 * ESTABLISHED, 08 CLOSE_WAIT...); a connection no process holds a file for has inode 0, which for
 * an ESTABLISHED or CLOSE_WAIT one means it waits in a listener's accept queue (a socket the
 * process closed has left those states).
 */
import { closeSync, openSync, readSync } from 'node:fs'

export interface PortSockets {
  /** Handshakes answered but not completed (SYN_RECV): their clients believe themselves connected. */
  handshaking: number
  /** Remote ports of the connections completed and queued, not yet accepted by any process. */
  queued: number[]
}

/** The table holding a listener of this family (an IPv6 one's IPv4 clients are listed there too). */
function fileFor(family: string): string {
  return family === 'IPv6' ? '/proc/net/tcp6' : '/proc/net/tcp'
}
const LISTEN = '0A'
const SYN_RECV = '03'
const WAITING = new Set(['01', '08']) // ESTABLISHED, CLOSE_WAIT

/**
 * The accept queue length of the listener on `port`, or undefined where the table is not readable
 * (not Linux) or shows no such listener. Cheap: listeners come first in the table, so only its
 * head is read.
 */
export function acceptQueueLength(port: number, family: string): number | undefined {
  const portHex = hex(port)
  let found: number | undefined
  readLines(fileFor(family), (text) => {
    const fields = text.trim().split(/\s+/)
    if (fields[3] !== LISTEN) return false
    if (portOf(fields[1]) !== portHex) return true
    found = parseInt(fields[4]?.split(':')[1] ?? '', 16)
    return false
  })
  return found === undefined || Number.isNaN(found) ? undefined : found
}

/** Every handshake in progress and every queued connection on local port `port`, from the whole table. */
export function portSockets(port: number, family: string): PortSockets {
  const portHex = hex(port)
  const mark = `:${portHex} `
  const sockets: PortSockets = { handshaking: 0, queued: [] }
  readLines(fileFor(family), (text) => {
    if (!text.includes(mark)) return true // most lines: another port, not worth splitting
    const fields = text.trim().split(/\s+/)
    if (portOf(fields[1]) !== portHex) return true
    if (fields[3] === SYN_RECV) sockets.handshaking++
    else if (WAITING.has(fields[3] ?? '') && fields[9] === '0') sockets.queued.push(parseInt(portOf(fields[2]) ?? '', 16))
    return true
  })
  return sockets
}

function hex(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, '0')
}

/** `0100007F:1F90` → `1F90`. */
function portOf(address: string | undefined): string | undefined {
  return address?.slice(address.lastIndexOf(':') + 1)
}

/** Feeds each socket line to `line` until it returns false or the file ends. */
function readLines(file: string, line: (text: string) => boolean): void {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return
  }
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024)
    let rest = ''
    let header = true
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null)
      if (n === 0) return
      const lines = (rest + buffer.toString('latin1', 0, n)).split('\n')
      rest = lines.pop() ?? ''
      for (const text of lines) {
        if (header) {
          header = false
          continue
        }
        if (!line(text)) return
      }
    }
  } finally {
    closeSync(fd)
  }
}
