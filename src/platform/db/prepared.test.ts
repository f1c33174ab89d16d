import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { nameMarkedStatements, prepared } from './prepared.js';

function recordingClient() {
  const calls: unknown[][] = [];
  const client = { query: (...args: unknown[]) => calls.push(args) };
  nameMarkedStatements(client as unknown as pg.ClientBase);
  return { client, calls };
}

describe('prepared statements', () => {
  it('sends a marked text as a named statement and any other text as it came', () => {
    const { client, calls } = recordingClient();
    prepared(CompiledQuery.raw('select $1::int as marked', [1]));
    client.query('select $1::int as marked', [2]);
    client.query('select $1::int as other', [3]);
    client.query({ text: 'select $1::int as marked', values: [4] });
    expect(calls).toEqual([
      [{ name: expect.stringMatching(/^emporium_\d+$/), text: 'select $1::int as marked', values: [2] }],
      ['select $1::int as other', [3]],
      [{ text: 'select $1::int as marked', values: [4] }],
    ]);
  });

  it('gives each marked text its own name, the same one every time', () => {
    const { client, calls } = recordingClient();
    prepared(CompiledQuery.raw('select 1 as one', []));
    prepared(CompiledQuery.raw('select 2 as two', []));
    prepared(CompiledQuery.raw('select 1 as one', []));
    client.query('select 1 as one', []);
    client.query('select 2 as two', []);
    client.query('select 1 as one', []);
    const names = calls.map(([config]) => (config as { name: string }).name);
    expect(names[0]).toBe(names[2]);
    expect(names[0]).not.toBe(names[1]);
  });
});
