import { Context, type Emitter, Liquid, type Template, toValue, toValueSync } from 'liquidjs';

/**
 * The one Liquid setup of notification templates (contract §13), hardened for templates a merchant
 * writes and the worker renders unattended: no file system (the tags that read files are removed, so
 * they are parse errors), unknown filters and tags are parse errors, and every render has a time
 * budget, a memory budget (liquidjs counts ranges, strings built by filters, …) and an output cap.
 */

/** Template parts and the messages of their errors name them. */
export type TemplatePart = 'subject' | 'html' | 'text';

/** Per render: a `{% for %}` over a huge range or nested loops stop here. */
export const RENDER_TIME_LIMIT_MS = 200;
/** Characters liquidjs may allocate per render (ranges, `append`, `join`, …). */
export const RENDER_MEMORY_LIMIT = 4_000_000;
/** The longest template source liquidjs will parse (the request schema caps bodies lower). */
const PARSE_LIMIT = 200_000;
/** The longest output of one part: an e-mail far beyond any mail client's patience. */
export const MAX_RENDERED_LENGTH = 1_000_000;

/** Why a template failed: its part, its line when known, and liquidjs's reason without position. */
export class TemplateError extends Error {
  constructor(
    readonly part: TemplatePart,
    readonly reason: string,
    readonly line?: number,
  ) {
    super(`${part}: ${line === undefined ? '' : `line ${line}: `}${reason}`);
  }
}

class OutputTooLarge extends Error {
  constructor() {
    super('the rendered output is too long');
  }
}

// liquidjs ends its messages with ", line:3, col:1" (and sometimes the source excerpt after a newline).
const POSITION = /, line:(\d+), col:\d+/;

function templateErrorOf(part: TemplatePart, error: unknown): TemplateError {
  if (error instanceof TemplateError) return error;
  const cause = (error as { originalError?: unknown } | null)?.originalError;
  if (error instanceof OutputTooLarge || cause instanceof OutputTooLarge)
    return new TemplateError(part, `the rendered ${part} is longer than ${MAX_RENDERED_LENGTH} characters`);
  const message = error instanceof Error ? error.message : String(error);
  // Heap-level failures (a string past V8's limit) are the template's doing too.
  if (error instanceof RangeError) return new TemplateError(part, 'the template produces too much output');
  const firstLine = message.split('\n')[0] ?? message;
  const position = POSITION.exec(firstLine);
  const reason = firstLine.replace(POSITION, '').trim() || 'the template could not be rendered';
  return new TemplateError(part, reason, position ? Number(position[1]) : undefined);
}

const moneyFormatters = new Map<string, Intl.NumberFormat>();

/**
 * `{{ order.total | money }}` → "$1,234.50": a decimal amount (number or decimal string, as the
 * merchant API gives them) in the currency of the message (`currency` in the variables) or the one
 * given (`| money: "EUR"`), formatted as the shop formats prices. Not a number: printed as it is.
 */
export function formatMoney(value: unknown, currency: string): string {
  if (value === null || value === undefined || value === '') return '';
  const amount = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(amount)) return String(value);
  let formatter = moneyFormatters.get(currency);
  if (!formatter) {
    try {
      formatter = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    } catch {
      return String(value);
    }
    moneyFormatters.set(currency, formatter);
  }
  return formatter.format(amount);
}

function createEngine(escapeOutput: boolean): Liquid {
  const engine = new Liquid({
    ...(escapeOutput ? { outputEscape: 'escape' as const } : {}),
    strictFilters: true,
    // Only the record's own fields, never a prototype's (`constructor`, `__proto__`).
    ownPropertyOnly: true,
    parseLimit: PARSE_LIMIT,
    renderLimit: RENDER_TIME_LIMIT_MS,
    memoryLimit: RENDER_MEMORY_LIMIT,
    // No files: an empty in-memory set, and the tags that would look one up are removed below.
    templates: {},
    relativeReference: false,
    cache: false,
  });
  for (const tag of ['include', 'render', 'layout', 'block']) delete engine.tags[tag];
  engine.registerFilter('money', function (this: { context: Context }, value: unknown, currency?: unknown) {
    const code = typeof currency === 'string' && currency ? currency : this.context.getSync(['currency']);
    return formatMoney(value, typeof code === 'string' ? code : 'USD');
  });
  return engine;
}

/** The html part: every `{{ }}` escaped unless it ends in `| raw`. */
const htmlEngine = createEngine(true);
/** Subject and text: plain text, nothing escaped. */
const plainEngine = createEngine(false);

const engineOf = (part: TemplatePart) => (part === 'html' ? htmlEngine : plainEngine);

/**
 * Parsed templates by part and source: defaults and saved templates render many times a second. A
 * saved template that changes is another source, parsed anew; its old text ages out with the bound.
 * Keyed by the source itself (not a key built from it): the defaults are the same string every time,
 * whose hash V8 keeps, so a lookup does not hash 8 KB of template text again.
 */
const parsedByPart: Record<TemplatePart, Map<string, Template[]>> = {
  subject: new Map(),
  html: new Map(),
  text: new Map(),
};
const MAX_PARSED = 500;

/** Parses a part, or throws TemplateError naming the part and the line. */
export function parseTemplate(part: TemplatePart, source: string): Template[] {
  const parsed = parsedByPart[part];
  const cached = parsed.get(source);
  if (cached) return cached;
  if (source.includes('\u0000')) throw new TemplateError(part, 'the template contains a NUL character');
  let templates: Template[];
  try {
    templates = engineOf(part).parse(source);
  } catch (error) {
    throw templateErrorOf(part, error);
  }
  if (parsed.size >= MAX_PARSED) parsed.clear();
  parsed.set(source, templates);
  return templates;
}

/** Collects the output and stops the render once it passes MAX_RENDERED_LENGTH. */
class CappedEmitter implements Emitter {
  buffer = '';
  write(html: unknown): void {
    this.buffer += stringify(html);
    if (this.buffer.length > MAX_RENDERED_LENGTH) throw new OutputTooLarge();
  }
}

function stringify(value: unknown): string {
  const v = toValue(value);
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(stringify).join('');
  return String(v);
}

/**
 * Renders one part with its variables (synchronously: nothing a template reads needs I/O, and the
 * time limit is checked between nodes). Throws TemplateError on any failure.
 */
export function renderPart(part: TemplatePart, source: string, variables: object): string {
  const templates = parseTemplate(part, source);
  const engine = engineOf(part);
  const emitter = new CappedEmitter();
  try {
    const ctx = new Context(variables, engine.options, { sync: true }, { liquid: engine });
    toValueSync(engine.renderer.renderTemplates(templates, ctx, emitter));
  } catch (error) {
    throw templateErrorOf(part, error);
  }
  return emitter.buffer;
}
