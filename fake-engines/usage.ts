/**
 * `--help` (or `-h`) on a fake engine's command line: its usage on stdout and exit 0, before it
 * starts a server or waits on stdin (the six commands the kit installs printed no usage;
 * one died with a stack trace, two started a server). The usage texts are in each main.ts.
 */
export function exitWithUsageOnHelp(argv: readonly string[], usage: string): void {
  if (!argv.includes('--help') && !argv.includes('-h')) return
  process.stdout.write(usage.endsWith('\n') ? usage : `${usage}\n`)
  process.exit(0)
}
