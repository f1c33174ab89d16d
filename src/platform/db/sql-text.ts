import { CompiledQuery } from 'kysely';

/**
 * SQL text and its parameters (`$1`, `$2`, … in the text), as PostgreSQL receives a statement. For
 * the few statements every checkout sends: Kysely's builder and compiler build an operation tree per
 * call and walk it (frozen nodes, a visitor), which cost checkout about as much JavaScript as the
 * bare baseline's whole request (docs/performance.md). Here a statement is a list of text pieces
 * between its parameters, joined once when it is sent; its text is the same at every call of one
 * shape, so it can be prepared.
 */
export interface SqlText {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** Text pieces around parameters: `strings.length === parameters.length + 1`. */
class Fragment implements SqlText {
  private text: string | undefined;

  constructor(
    readonly strings: readonly string[],
    readonly parameters: readonly unknown[],
  ) {}

  get sql(): string {
    if (this.text === undefined) {
      let text = this.strings[0] as string;
      for (let index = 0; index < this.parameters.length; index++)
        text += `$${index + 1}${this.strings[index + 1]}`;
      this.text = text;
    }
    return this.text;
  }
}

/** Builds a Fragment piece by piece; a spliced fragment's pieces join ours (no text is renumbered). */
class Pieces {
  private readonly strings: string[] = [''];
  private readonly parameters: unknown[] = [];

  text(text: string): void {
    this.strings[this.strings.length - 1] += text;
  }

  value(value: unknown): void {
    if (value instanceof Fragment) {
      this.text(value.strings[0] as string);
      for (let index = 0; index < value.parameters.length; index++) {
        this.parameters.push(value.parameters[index]);
        this.strings.push(value.strings[index + 1] as string);
      }
      return;
    }
    this.parameters.push(value);
    this.strings.push('');
  }

  done(): Fragment {
    return new Fragment(this.strings, this.parameters);
  }
}

/** A fragment from its text pieces and the parameters between them (`strings.length === parameters.length + 1`). */
export function fromPieces(strings: readonly string[], parameters: readonly unknown[]): SqlText {
  if (strings.length !== parameters.length + 1)
    throw new Error('fromPieces: one more string than parameters');
  return new Fragment(strings, parameters);
}

/** Trusted SQL text spliced as it is (never input): a column list, `now()`, a CTE name. */
export const rawSql = (text: string): SqlText => new Fragment([text], []);

/** A piece of SQL made here (sqlText, rawSql, …), not a plain value that happens to look like one. */
export const isSqlText = (value: unknown): value is SqlText => value instanceof Fragment;

/**
 * A tagged template: each `${value}` becomes the next parameter, except a nested `sqlText` (or
 * `rawSql`), which is spliced with its own parameters.
 */
export function sqlText(strings: TemplateStringsArray, ...values: unknown[]): SqlText {
  const pieces = new Pieces();
  pieces.text(strings[0] as string);
  for (let index = 0; index < values.length; index++) {
    pieces.value(values[index]);
    pieces.text(strings[index + 1] as string);
  }
  return pieces.done();
}

/** Pieces of SQL joined by `separator`. */
export function joinSql(parts: readonly SqlText[], separator = ', '): SqlText {
  const pieces = new Pieces();
  parts.forEach((part, index) => {
    if (index > 0) pieces.text(separator);
    pieces.value(asFragment(part));
  });
  return pieces.done();
}

/** Text pieces and parameter numbers of texts seen (Kysely's, gated ones), kept for their next use. */
const splits = new Map<string, { strings: string[]; numbers: number[] }>();
const MAX_SPLITS = 1000;

/**
 * Any SqlText (a compiled Kysely query too) as a piece `sqlText` and `joinSql` splice. Its text must
 * hold no `$n` other than its parameters (true of Kysely's compiled queries).
 */
export function asFragment(query: SqlText): SqlText {
  if (query instanceof Fragment) return query;
  let split = splits.get(query.sql);
  if (!split) {
    const parts = query.sql.split(/\$(\d+)/);
    split = {
      strings: parts.filter((_, index) => index % 2 === 0),
      numbers: parts.filter((_, index) => index % 2 === 1).map(Number),
    };
    if (splits.size < MAX_SPLITS) splits.set(query.sql, split);
  }
  return new Fragment(
    split.strings,
    split.numbers.map((number) => query.parameters[number - 1]),
  );
}

/** A fragment whose parameters are replaced by `bind(value)`: a value, or SQL to splice in its place. */
export function rebind(query: SqlText, bind: (value: unknown) => unknown): SqlText {
  const fragment = asFragment(query) as Fragment;
  const pieces = new Pieces();
  pieces.text(fragment.strings[0] as string);
  fragment.parameters.forEach((value, index) => {
    pieces.value(bind(value));
    pieces.text(fragment.strings[index + 1] as string);
  });
  return pieces.done();
}

/** The statement as Kysely's executors take it. */
export function compiled<R>(statement: SqlText): CompiledQuery<R> {
  return CompiledQuery.raw(statement.sql, statement.parameters as unknown[]) as CompiledQuery<R>;
}
