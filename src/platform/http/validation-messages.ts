import { UUID_PATTERN } from '../ids.js';

/**
 * Turns Ajv's errors into one sentence per field that a merchant can act on ("must be an amount
 * such as 19.99") instead of schema text (`must match pattern "^\d{1,14}(\.\d+)?$"`, repeated once
 * per branch of a union). A shared schema says what its pattern means with `x-error` (ERROR_HINT);
 * every other keyword gets a plain sentence here. Ajv runs with `verbose` so that each error carries
 * the schema it failed (`parentSchema`), which is where the hint is read.
 */
export const ERROR_HINT = 'x-error';

export interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
  parentSchema?: unknown;
}

export interface FieldMessage {
  field: string;
  message: string;
}

/** One message per field, in the order the fields first failed, the first `limit` fields. */
export function fieldMessages(
  context: string | undefined,
  issues: ValidationIssue[],
  limit: number,
): FieldMessage[] {
  const byField = new Map<string, ValidationIssue[]>();
  for (const issue of issues) {
    const field = fieldOf(context, issue);
    const list = byField.get(field);
    if (list) list.push(issue);
    else if (byField.size < limit) byField.set(field, [issue]);
  }
  return [...byField].map(([field, list]) => ({ field, message: bestMessage(list) }));
}

/** The top-level message: the first field's sentence, and how many others are wrong. */
export function summary(details: FieldMessage[]): string {
  const [first, ...others] = details;
  if (!first) return 'The request is not valid';
  const more =
    others.length === 0 ? '' : ` (and ${others.length} other field${others.length > 1 ? 's' : ''})`;
  return `${first.field} ${first.message}${more}`;
}

function fieldOf(context: string | undefined, issue: ValidationIssue): string {
  let field = (issue.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
  const extra = issue.params?.additionalProperty ?? issue.params?.missingProperty;
  if (typeof extra === 'string') field = field ? `${field}.${extra}` : extra;
  return field || context || 'body';
}

/**
 * Several keywords can fail for one field (each branch of `T | null`, `pattern` and `maxLength`).
 * The schema's own hint wins; then a constraint of a branch whose type matched (the value was of
 * the right kind but out of bounds); only when no branch matched the type, the types it may have.
 */
function bestMessage(issues: ValidationIssue[]): string {
  for (const issue of issues) {
    const hint = hintOf(issue);
    if (hint) return hint;
  }
  const specific = issues.find((i) => i.keyword !== 'type' && i.keyword !== 'anyOf' && i.keyword !== 'oneOf');
  if (specific) return sentence(specific);
  const types = issues.filter((i) => i.keyword === 'type').map((i) => typeName(String(i.params?.type)));
  if (types.length > 0) return `must be ${[...new Set(types)].join(' or ')}`;
  return 'is not valid';
}

function hintOf(issue: ValidationIssue): string | undefined {
  if (issue.keyword === 'required' || issue.keyword === 'additionalProperties') return undefined;
  const hint = (issue.parentSchema as Record<string, unknown> | undefined)?.[ERROR_HINT];
  return typeof hint === 'string' ? hint : undefined;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  'finite number': 'a finite number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
};

function typeName(type: string): string {
  return type
    .split(',')
    .map((t) => TYPE_NAMES[t] ?? t)
    .join(' or ');
}

const FORMATS: Record<string, string> = {
  email: 'must be an e-mail address such as name@example.com',
  uri: 'must be a full URL such as https://example.com/page',
  url: 'must be a full URL such as https://example.com/page',
  'date-time': 'must be a date and time such as 2026-11-28T13:00:00Z',
  date: 'must be a date such as 2026-11-28',
  uuid: 'must be an id (a UUID)',
};

const plural = (n: unknown, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function sentence(issue: ValidationIssue): string {
  const p = issue.params ?? {};
  switch (issue.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return Array.isArray(p.allowedValues)
        ? `must be one of: ${p.allowedValues.join(', ')}`
        : 'is not allowed';
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'minimum':
      return `must be at least ${p.limit}`;
    case 'maximum':
      return `must be at most ${p.limit}`;
    case 'exclusiveMinimum':
      return `must be more than ${p.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${p.limit}`;
    case 'multipleOf':
      return `must be a multiple of ${p.multipleOf}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${plural(p.limit, 'character')} long`;
    case 'maxLength':
      return `must be at most ${plural(p.limit, 'character')} long`;
    case 'minItems':
      return `must list at least ${plural(p.limit, 'item')}`;
    case 'maxItems':
      return `must list at most ${plural(p.limit, 'item')}`;
    case 'uniqueItems':
      return 'must not list the same item twice';
    case 'minProperties':
      return `must have at least ${plural(p.limit, 'field')}`;
    case 'maxProperties':
      return `must have at most ${plural(p.limit, 'field')}`;
    case 'format':
      return FORMATS[String(p.format)] ?? `must be a valid ${p.format}`;
    case 'pattern':
      return patternSentence(String(p.pattern));
    case 'type':
      return `must be ${typeName(String(p.type))}`;
    default:
      return 'is not valid';
  }
}

/** Patterns without a hint: the id filters' (a UUID, or a UUID or a word such as `root`) and blank text. */
function patternSentence(pattern: string): string {
  if (pattern.endsWith(UUID_PATTERN)) return 'must be an id (a UUID)';
  if (pattern === '\\S') return 'must not be blank';
  if (pattern === '^\\S+$') return 'must not contain spaces';
  return 'is not in the expected format';
}
