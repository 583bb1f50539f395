/**
 * Packages the gateway uses only for some configurations (the Claude Agent SDK for cli_primary
 * profiles, the conformance kit's fakes for `gateway dev`) are optional peers: imported when
 * needed, and a missing one is a one-line startup error naming what to install.
 */
export class MissingPackageError extends Error {
  readonly packageName: string

  constructor(packageName: string, neededFor: string) {
    super(`${neededFor} needs the package ${packageName}: npm install ${packageName}`)
    this.name = 'MissingPackageError'
    this.packageName = packageName
  }
}

/** Runs `load` (a dynamic import); Node's "cannot find package <name>" becomes a MissingPackageError. */
export async function importOptional<T>(packageName: string, neededFor: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(`'${packageName}'`)) throw new MissingPackageError(packageName, neededFor)
    throw err
  }
}
