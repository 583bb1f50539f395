/** A command-line mistake: printed with the usage text, exit code 2. */
export class UsageError extends Error {
  readonly usage: string
  constructor(message: string, usage: string) {
    super(message)
    this.usage = usage
  }
}
