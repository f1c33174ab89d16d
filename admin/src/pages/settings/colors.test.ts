import { describe, expect, it } from 'vitest';
import { type ColorName, colorChanges, shownColor } from './colors';

const NAMES: ColorName[] = ['primary', 'secondary', 'accent', 'background', 'text'];
const DEFAULTS = {
  primary: '#1f2937',
  secondary: '#4b5563',
  accent: '#2563eb',
  background: '#ffffff',
  text: '#111827',
};

describe('colorChanges', () => {
  it.each([
    ['nothing set, nothing typed', {}, {}, {}],
    ['a colour kept as saved (any case)', { primary: '#AA0000' }, { primary: '#aa0000' }, {}],
    ['a colour typed', {}, { accent: '#00ff00' }, { colors: { accent: '#00ff00' } }],
    ['a colour changed', { text: '#000000' }, { text: '#222222' }, { colors: { text: '#222222' } }],
    [
      'a colour emptied: back to the default',
      { primary: '#112233' },
      { primary: ' ' },
      { colors: { primary: null } },
    ],
    ['an unknown key is never sent', {}, { border: '#000000' }, {}],
  ])('%s', (_, saved, draft, expected) => {
    expect(colorChanges(saved, draft, NAMES)).toEqual(expected);
  });
});

describe('shownColor', () => {
  it('draws a typed colour, and the default for an empty or half-typed one', () => {
    const shown = shownColor({ primary: '#112233', accent: '#12' }, DEFAULTS);
    expect(NAMES.map(shown)).toEqual(['#112233', '#4b5563', '#2563eb', '#ffffff', '#111827']);
  });
});
