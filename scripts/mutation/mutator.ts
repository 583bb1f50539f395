/**
 * Our own AST mutator (TypeScript compiler API): every mutant is one text replacement of a node's
 * span in one source file, found mechanically by operator, so the set measures the kit against
 * bugs nobody listed. Nothing here knows the gateway; the operators and their skips are the
 * whole definition (scripts/mutation/README.md explains each skip).
 */
import { createHash } from 'node:crypto'
import ts from 'typescript'

export const OPERATORS = [
  'condition', 'boundary', 'equality', 'logical', 'arithmetic', 'unary', 'literal',
  'removed-call', 'removed-await', 'removed-statement', 'early-return', 'optional-chain',
] as const
export type Operator = (typeof OPERATORS)[number]

export interface GeneratedMutant {
  /** Survives line shifts: file, enclosing function, operator, a hash of original→replacement, occurrence index. */
  key: string
  file: string
  line: number
  operator: Operator
  /** Name path of the enclosing function (`Class.method`, `outer>inner`, `<module>`). */
  fn: string
  original: string
  replacement: string
  start: number
  end: number
}

/** Calls whose string arguments are log messages: a changed message is unobservable to any client. */
const LOG_METHODS = new Set(['debug', 'info', 'warn', 'error', 'trace', 'log', 'fatal'])

function isTypePosition(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node; n; n = n.parent) {
    if (ts.isTypeNode(n) && !ts.isExpressionWithTypeArguments(n)) return true
    if (ts.isExpression(n) || ts.isStatement(n)) return false
  }
  return false
}

/** A string that is a log message, a module specifier or a property name: see the README's skips. */
function isUnobservableString(node: ts.Node): boolean {
  const parent = node.parent
  if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent) || ts.isExternalModuleReference(parent)) return true
  if (ts.isLiteralTypeNode(parent)) return true
  if ((ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent) || ts.isMethodDeclaration(parent) || ts.isPropertySignature(parent) || ts.isEnumMember(parent)) && parent.name === node) return true
  if (ts.isExpressionStatement(parent)) return true // 'use strict' and other directives
  let call: ts.Node = parent
  // The message may sit inside a template or a concatenation passed to the logger.
  while (ts.isBinaryExpression(call) || ts.isParenthesizedExpression(call) || ts.isTemplateSpan(call) || ts.isTemplateExpression(call)) call = call.parent
  if (ts.isCallExpression(call)) {
    if (call.expression.kind === ts.SyntaxKind.ImportKeyword) return true
    const callee = call.expression
    if (ts.isPropertyAccessExpression(callee) && LOG_METHODS.has(callee.name.text)) return true
  }
  return false
}

function functionName(node: ts.Node): string | undefined {
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
    const name = node.name ? node.name.getText() : 'default'
    const owner = node.parent && (ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.` : '')
    return `${owner}${ts.isGetAccessor(node) ? 'get ' : ts.isSetAccessor(node) ? 'set ' : ''}${name}`
  }
  if (ts.isConstructorDeclaration(node)) return `${ts.isClassLike(node.parent) && node.parent.name ? node.parent.name.text : '<class>'}.constructor`
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    const p = node.parent
    if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) return p.name.getText()
    if (ts.isFunctionExpression(node) && node.name) return node.name.text
    return '<anonymous>'
  }
  return undefined
}

function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)
    || ts.isConstructorDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)
}

const SWAP: Partial<Record<ts.SyntaxKind, [Operator, string[]]>> = {
  [ts.SyntaxKind.LessThanToken]: ['boundary', ['<=']],
  [ts.SyntaxKind.LessThanEqualsToken]: ['boundary', ['<']],
  [ts.SyntaxKind.GreaterThanToken]: ['boundary', ['>=']],
  [ts.SyntaxKind.GreaterThanEqualsToken]: ['boundary', ['>']],
  [ts.SyntaxKind.EqualsEqualsEqualsToken]: ['equality', ['!==']],
  [ts.SyntaxKind.ExclamationEqualsEqualsToken]: ['equality', ['===']],
  [ts.SyntaxKind.EqualsEqualsToken]: ['equality', ['!=']],
  [ts.SyntaxKind.ExclamationEqualsToken]: ['equality', ['==']],
  [ts.SyntaxKind.AmpersandAmpersandToken]: ['logical', ['||']],
  [ts.SyntaxKind.BarBarToken]: ['logical', ['&&']],
  [ts.SyntaxKind.PlusToken]: ['arithmetic', ['-']],
  [ts.SyntaxKind.MinusToken]: ['arithmetic', ['+']],
  [ts.SyntaxKind.AsteriskToken]: ['arithmetic', ['/']],
  [ts.SyntaxKind.SlashToken]: ['arithmetic', ['*']],
  [ts.SyntaxKind.PercentToken]: ['arithmetic', ['*']],
}

const isStringish = (n: ts.Node): boolean => ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n)

interface Raw { node: ts.Node; start: number; end: number; operator: Operator; replacement: string }

/** Every mutant of one source file. `file` is the path recorded in the mutant (relative to the project). */
export function generateMutants(file: string, text: string): GeneratedMutant[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const raws: Array<Raw & { fn: string }> = []
  const fnStack: string[] = []

  const add = (fn: string, node: ts.Node, operator: Operator, replacement: string, start = node.getStart(source), end = node.getEnd()) => {
    raws.push({ node, start, end, operator, replacement, fn })
  }

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)
      || ts.isModuleDeclaration(node) || ts.isImportEqualsDeclaration(node)) return
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return
    if (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)) return
    const name = isFunctionLike(node) ? functionName(node) : undefined
    if (name !== undefined) fnStack.push(fnStack.length && name === '<anonymous>' ? `${fnStack[fnStack.length - 1]}>${name}` : name)
    const fn = fnStack.length ? fnStack[fnStack.length - 1] : '<module>'
    mutate(node, fn)
    ts.forEachChild(node, visit)
    if (name !== undefined) fnStack.pop()
  }

  const mutate = (node: ts.Node, fn: string): void => {
    // conditions
    if ((ts.isIfStatement(node) || ts.isConditionalExpression(node)) && !isTypePosition(node)) {
      const cond = ts.isIfStatement(node) ? node.expression : node.condition
      if (cond.kind !== ts.SyntaxKind.TrueKeyword) add(fn, cond, 'condition', 'true')
      if (cond.kind !== ts.SyntaxKind.FalseKeyword) add(fn, cond, 'condition', 'false')
    }
    // A loop forced true never ends: it only measures the time cap, so loops are forced false only.
    if ((ts.isWhileStatement(node) || ts.isDoStatement(node)) && node.expression.kind !== ts.SyntaxKind.TrueKeyword) add(fn, node.expression, 'condition', 'false')
    if (ts.isForStatement(node) && node.condition) add(fn, node.condition, 'condition', 'false')
    // binary operators
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind
      const swap = SWAP[op]
      const concatenation = op === ts.SyntaxKind.PlusToken && (isStringish(node.left) || isStringish(node.right))
      if (swap && !concatenation) for (const r of swap[1]) add(fn, node.operatorToken, swap[0], r)
      if (op === ts.SyntaxKind.QuestionQuestionToken) {
        add(fn, node, 'logical', node.left.getText(source))
        add(fn, node, 'logical', node.right.getText(source))
      }
    }
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.ExclamationToken) add(fn, node, 'unary', node.operand.getText(source))
    // literals
    if (!isTypePosition(node)) {
      if (ts.isNumericLiteral(node)) {
        const n = Number(node.text)
        if (n === 0) add(fn, node, 'literal', '1')
        else {
          add(fn, node, 'literal', String(n + 1))
          add(fn, node, 'literal', '0')
        }
      }
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && !isUnobservableString(node)) {
        add(fn, node, 'literal', node.text === '' ? "'mutated'" : "''")
      }
      if (node.kind === ts.SyntaxKind.TrueKeyword && !ts.isIfStatement(node.parent)) add(fn, node, 'literal', 'false')
      if (node.kind === ts.SyntaxKind.FalseKeyword && !ts.isIfStatement(node.parent)) add(fn, node, 'literal', 'true')
      if (ts.isArrayLiteralExpression(node) && node.elements.length > 0 && !ts.isArrayBindingPattern(node.parent)) add(fn, node, 'literal', '[]')
    }
    // statements
    if (ts.isExpressionStatement(node)) {
      const e = node.expression
      const isCall = ts.isCallExpression(e) || (ts.isAwaitExpression(e) && ts.isCallExpression(e.expression)) || (ts.isVoidExpression(e) && ts.isCallExpression(e.expression))
      // `;` keeps an unbraced `if (x) f()` an if with an empty body.
      if (isCall) add(fn, node, 'removed-call', ';')
      else if (!ts.isStringLiteral(e)) add(fn, node, 'removed-statement', ';')
      if (ts.isAwaitExpression(e)) add(fn, e, 'removed-await', `void ${e.expression.getText(source)}`)
    }
    if (ts.isThrowStatement(node) || ts.isBreakStatement(node) || ts.isContinueStatement(node)) add(fn, node, 'removed-statement', ';')
    // early return at the top of a function body
    if (isFunctionLike(node) && node.body && ts.isBlock(node.body) && node.body.statements.length > 0 && !ts.isConstructorDeclaration(node)) {
      const first = node.body.statements[0]
      const start = first.getStart(source)
      raws.push({ node: first, start, end: start, operator: 'early-return', replacement: 'return undefined; ', fn: functionName(node) === '<anonymous>' ? `${fn}` : fn })
    }
    // optional chains: `a?.b` → `a.b`, `a?.()` → `a()`
    if ((ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) || ts.isCallExpression(node)) && node.questionDotToken) {
      add(fn, node.questionDotToken, 'optional-chain', ts.isPropertyAccessExpression(node) ? '.' : '')
    }
  }

  visit(source)
  raws.sort((a, b) => a.start - b.start || a.end - b.end)
  const seen = new Map<string, number>()
  return raws.map((r) => {
    const original = r.operator === 'early-return' ? '' : text.slice(r.start, r.end)
    const digest = createHash('sha1').update(`${original}\u0000${r.replacement}`).digest('hex').slice(0, 8)
    const base = `${file}|${r.fn}|${r.operator}|${digest}`
    const index = seen.get(base) ?? 0
    seen.set(base, index + 1)
    return {
      key: `${base}|${index}`, file, line: source.getLineAndCharacterOfPosition(r.start).line + 1, operator: r.operator, fn: r.fn,
      original, replacement: r.replacement, start: r.start, end: r.end,
    }
  })
}

/** The file's text with one mutant applied. */
export function applyMutant(text: string, m: Pick<GeneratedMutant, 'start' | 'end' | 'replacement'>): string {
  return text.slice(0, m.start) + m.replacement + text.slice(m.end)
}

/** A one-hunk unified-style diff of the mutated lines, for reports. */
export function mutantDiff(text: string, m: GeneratedMutant): string {
  const lineStart = text.lastIndexOf('\n', m.start - 1) + 1
  const nl = text.indexOf('\n', m.end)
  const lineEnd = nl === -1 ? text.length : nl
  const before = text.slice(lineStart, lineEnd)
  const after = applyMutant(text, m).slice(lineStart, lineEnd + (m.replacement.length - (m.end - m.start)))
  const minus = before.split('\n').map((l) => `- ${l}`).join('\n')
  const plus = after.split('\n').map((l) => `+ ${l}`).join('\n')
  return `--- ${m.file}:${m.line}\n${minus}\n${plus}`
}
