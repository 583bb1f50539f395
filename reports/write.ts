/** Writes report.json, junit.xml and index.html into one directory, all from the one report. */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { Report } from '../conformance/types.ts'
import { renderHtml } from './html.ts'
import { renderJunit } from './junit.ts'

export async function writeReports(report: Report, dir: string, linkLatest: boolean): Promise<void> {
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`)
  await writeFile(join(dir, 'junit.xml'), renderJunit(report))
  await writeFile(join(dir, 'index.html'), renderHtml(report))
  if (linkLatest) {
    const latest = join(dirname(dir), 'latest')
    await rm(latest, { force: true, recursive: false }).catch(() => undefined)
    await symlink(basename(dir), latest).catch(() => undefined)
  }
}
