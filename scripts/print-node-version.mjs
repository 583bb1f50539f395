// Printed once per test run so CI logs show the project's own Node 22 was used (DESIGN.md §3).
const major = Number(process.versions.node.split('.')[0])
console.log(`node ${process.version} (${process.execPath})`)
if (major < 22) {
  console.error('Node 22 or later is required; run through npm so node_modules/.bin/node is used.')
  process.exit(1)
}
