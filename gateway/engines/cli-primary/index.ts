export { createCliPrimaryAdapter, type CliPrimaryOptions } from './adapter.ts'
