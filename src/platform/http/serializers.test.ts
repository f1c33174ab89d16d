import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { Nullable } from './envelopes.js';
import { serializerSchemaOf, unionFreeSerializers } from './serializers.js';

const Status = Type.Union([Type.Literal('active'), Type.Literal('draft'), Type.Literal('archived')]);
const Item = Type.Object({
  id: Type.String(),
  status: Status,
  maybe_status: Nullable(Status),
  note: Nullable(Type.String({ description: 'a note' })),
  when: Nullable(Type.String({ format: 'date-time' })),
  count: Nullable(Type.Integer()),
  amount: Nullable(Type.Number()),
  flag: Nullable(Type.Boolean()),
  address: Nullable(Type.Object({ line1: Type.String(), line2: Nullable(Type.String()) })),
  tags: Nullable(Type.Array(Type.String())),
  either: Type.Union([Type.String(), Type.Integer()]),
});
const Envelope = Type.Object({ data: Type.Array(Item) });

function compile(schema: unknown) {
  return unionFreeSerializers()(undefined, undefined)({ schema, method: 'GET', url: '/', httpStatus: '200' });
}

describe('serializerSchemaOf', () => {
  it('says Nullable(T) as T with nullable, and string literal unions as an enum', () => {
    const rewritten = serializerSchemaOf(Item) as { properties: Record<string, unknown> };
    expect(rewritten.properties.note).toEqual({ type: 'string', description: 'a note', nullable: true });
    expect(rewritten.properties.status).toEqual({ type: 'string', enum: ['active', 'draft', 'archived'] });
    expect(rewritten.properties.maybe_status).toEqual({
      type: 'string',
      enum: ['active', 'draft', 'archived'],
      nullable: true,
    });
    expect(rewritten.properties.address).toMatchObject({
      type: 'object',
      nullable: true,
      properties: { line2: { type: 'string', nullable: true } },
    });
    // Any other union is left as it is.
    expect(rewritten.properties.either).toEqual(JSON.parse(JSON.stringify(Item.properties.either)));
  });

  it('leaves the route schema (and so the OpenAPI document) untouched', () => {
    const before = JSON.stringify(Envelope);
    serializerSchemaOf(Envelope);
    expect(JSON.stringify(Envelope)).toBe(before);
    expect(JSON.stringify(Item.properties.note)).toContain('anyOf');
  });
});

describe('unionFreeSerializers', () => {
  const full = {
    id: 'a',
    status: 'draft',
    maybe_status: 'archived',
    note: 'x "quoted"',
    when: '2026-11-26T08:00:00.000Z',
    count: 3,
    amount: 12.5,
    flag: false,
    address: { line1: 'Main St 1', line2: null },
    tags: ['a', 'b'],
    either: 7,
  };
  const empty = {
    id: 'b',
    status: 'active',
    maybe_status: null,
    note: null,
    when: null,
    count: null,
    amount: null,
    flag: null,
    address: null,
    tags: null,
    either: 'seven',
  };

  it('writes what JSON.stringify writes for every value the schema admits, null or not', () => {
    const body = { data: [full, empty, { ...full, address: { line1: 'Elm', line2: 'Flat 2' } }] };
    expect(compile(Envelope)(body)).toBe(JSON.stringify(body));
  });

  it('still drops fields the schema does not list', () => {
    const body = { data: [{ ...empty, secret: 's', address: { line1: 'Elm', line2: null, extra: 1 } }] };
    expect(JSON.parse(compile(Envelope)(body))).toEqual({
      data: [{ ...empty, address: { line1: 'Elm', line2: null } }],
    });
  });
});
