export { createCliSecondaryAdapter, type CliSecondaryOptions } from './adapter.ts'
