import { describe, expect, it } from 'vitest';
import { asFragment, compiled, fromPieces, isSqlText, joinSql, rawSql, rebind, sqlText } from './sql-text.js';

describe('sqlText', () => {
  it('numbers parameters in order and splices nested fragments with theirs', () => {
    const inner = sqlText`b = ${2} AND c = ${'three'}`;
    const outer = sqlText`SELECT ${1} WHERE a = ${rawSql('x')} AND ${inner} AND d = ${null}`;
    expect(outer.sql).toBe('SELECT $1 WHERE a = x AND b = $2 AND c = $3 AND d = $4');
    expect(outer.parameters).toEqual([1, 2, 'three', null]);
  });

  it('keeps a value that looks like SQL (a plain object) as a parameter', () => {
    const value = { sql: 'DROP TABLE x', parameters: [] };
    const query = sqlText`SELECT ${value}`;
    expect(query.sql).toBe('SELECT $1');
    expect(query.parameters).toEqual([value]);
    expect(isSqlText(value)).toBe(false);
    expect(isSqlText(query)).toBe(true);
  });

  it('joins pieces with a separator, and splits a foreign text (Kysely) at its $n markers', () => {
    const kysely = { sql: 'select "a" from "t" where "b" = $1 and "c" = $2', parameters: ['B', 'C'] };
    const joined = joinSql([sqlText`${0}`, kysely, rawSql('now()')], ' | ');
    expect(joined.sql).toBe('$1 | select "a" from "t" where "b" = $2 and "c" = $3 | now()');
    expect(joined.parameters).toEqual([0, 'B', 'C']);
    // $n markers out of order or repeated keep their values.
    const odd = asFragment({ sql: 'f($2, $1, $2)', parameters: ['one', 'two'] });
    expect(odd.sql).toBe('f($1, $2, $3)');
    expect(odd.parameters).toEqual(['two', 'one', 'two']);
  });

  it('rebinds parameters to values or to SQL spliced in their place', () => {
    const query = sqlText`INSERT INTO t VALUES (${'keep'}, ${'late'}, ${7})`;
    const bound = rebind(query, (value) => (value === 'late' ? sqlText`(SELECT ${'n'}::int)` : value));
    expect(bound.sql).toBe('INSERT INTO t VALUES ($1, (SELECT $2::int), $3)');
    expect(bound.parameters).toEqual(['keep', 'n', 7]);
  });

  it('builds from pieces, and compiles to what Kysely executes', () => {
    const query = fromPieces(['a = ', ' AND b = ', ''], [1, 2]);
    expect(compiled(query)).toMatchObject({ sql: 'a = $1 AND b = $2', parameters: [1, 2] });
    expect(() => fromPieces(['a'], [1])).toThrow(/one more string/);
  });
});
