import { describe, expect, it } from 'vitest';
import { subjectLine, tidyText } from './render-message.js';
import {
  formatMoney,
  MAX_RENDERED_LENGTH,
  renderPart,
  TemplateError,
  type TemplatePart,
} from './template-engine.js';

const vars = {
  currency: 'EUR',
  name: '<b>Tom & "Jerry"</b>',
  amount: 1234.5,
  price: '19.99',
  list: ['a', 'b'],
  nested: { inner: { value: 'deep' } },
};

const render = (part: TemplatePart, source: string, variables: object = vars) =>
  renderPart(part, source, variables);

function failure(part: TemplatePart, source: string): TemplateError {
  try {
    render(part, source);
  } catch (error) {
    if (error instanceof TemplateError) return error;
    throw error;
  }
  throw new Error(`rendered: ${source}`);
}

describe('renderPart', () => {
  it.each([
    ['html', '{{ name }}', '&lt;b&gt;Tom &amp; &#34;Jerry&#34;&lt;/b&gt;'],
    ['html', '{{ name | raw }}', '<b>Tom & "Jerry"</b>'],
    ['text', '{{ name }}', '<b>Tom & "Jerry"</b>'],
    ['subject', '{{ name }}', '<b>Tom & "Jerry"</b>'],
    ['html', '{{ amount | money }}', '€1,234.50'],
    ['text', '{{ price | money }}', '€19.99'],
    ['text', '{{ price | money: "JPY" }}', '¥20'],
    ['text', '{{ missing | money }}', ''],
    ['text', '{{ list | join: "," }} {{ nested.inner.value }}', 'a,b deep'],
    ['text', '{{ nested.constructor }}{{ list.__proto__ }}', ''],
    ['text', '{% if amount > 1000 %}big{% else %}small{% endif %}', 'big'],
    ['text', '{% capture c %}x{% endcapture %}{{ c }}{{ c }}', 'xx'],
  ] as const)('%s %s → %s', (part, source, expected) => {
    expect(render(part, source)).toBe(expected);
  });

  it.each([
    ['html', 'a\nb\n{% foo %}', 'html: line 3: tag "foo" not found', 3],
    ['text', '{% if x %}\nopen', 'text: line 1: tag {% if x %} not closed', 1],
    ['subject', '\n{{ x | shout }}', 'subject: line 2: undefined filter: shout', 2],
    ['html', '{% include "a" %}', 'html: line 1: tag "include" not found', 1],
    ['html', '{% render "a" %}', 'html: line 1: tag "render" not found', 1],
    ['html', '{% layout "a" %}', 'html: line 1: tag "layout" not found', 1],
    ['text', '{% for i in (1..100000000) %}{% endfor %}', 'text: line 1: memory alloc limit exceeded', 1],
  ] as const)('refuses %s %j', (part, source, message, line) => {
    const error = failure(part, source);
    expect(error.message).toBe(message);
    expect(error.part).toBe(part);
    expect(error.line).toBe(line);
  });

  it('stops a render past its time limit', () => {
    const started = performance.now();
    const error = failure(
      'html',
      '{% for i in (1..100000) %}{% for j in (1..100000) %}{% endfor %}{% endfor %}',
    );
    expect(error.message).toMatch(/^html: line 1: template render limit exceeded/);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('stops an output past its cap', () => {
    const block = 'x'.repeat(50);
    const source = `{% capture s %}{% for i in (1..2000) %}${block}{% endfor %}{% endcapture %}{% for i in (1..20) %}{{ s }}{% endfor %}`;
    expect(failure('text', source).message).toBe(
      `text: the rendered text is longer than ${MAX_RENDERED_LENGTH} characters`,
    );
  });

  it('refuses a NUL character', () => {
    expect(failure('subject', 'a\u0000b').message).toBe('subject: the template contains a NUL character');
  });
});

describe('formatMoney', () => {
  it.each([
    [12.5, 'USD', '$12.50'],
    ['1999.9', 'EUR', '€1,999.90'],
    [1200, 'JPY', '¥1,200'],
    [1.234, 'BHD', 'BHD\u00a01.234'],
    ['n/a', 'USD', 'n/a'],
    [null, 'USD', ''],
    [5, 'NOT-A-CURRENCY', '5'],
  ] as const)('%j in %s → %s', (value, currency, expected) => {
    expect(formatMoney(value, currency)).toBe(expected);
  });
});

describe('subjectLine and tidyText', () => {
  it.each([
    ['  a\n b \r\n c  ', 'a b c'],
    ['\tOrder #1\t', 'Order #1'],
  ])('subject %j → %j', (input, expected) => {
    expect(subjectLine(input)).toBe(expected);
  });

  it('caps a subject at 1000 characters', () => {
    expect(subjectLine('x'.repeat(2000))).toHaveLength(1000);
  });

  it.each([
    ['\n\nHello  \n\n\n\nWorld\n\n', 'Hello\n\nWorld\n'],
    ['a\r\nb', 'a\nb\n'],
  ])('text %j → %j', (input, expected) => {
    expect(tidyText(input)).toBe(expected);
  });
});
