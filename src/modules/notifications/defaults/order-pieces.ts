import { htmlButton, htmlSection, MUTED_STYLE, TEXT_STYLE } from './layout.js';

/**
 * The pieces of an order the buyer's and the merchant's e-mails show: its lines, its totals, its
 * shipping address and its link, once as HTML and once as plain text. Money goes through the
 * `money` filter (the order's amounts are the merchant API's decimal numbers).
 */

const CELL = `padding:10px 0;border-bottom:1px solid #e5e7eb;${TEXT_STYLE}`;
/** The quantity and price cells: a gap from the column before them, kept on a phone's narrow screen. */
const FIGURE_CELL = `${CELL};padding-left:12px;white-space:nowrap`;

/** Each line: name, variant, quantity × unit price, line total. */
export const HTML_LINES =
  htmlSection(`<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">
<tr>
<th align="left" style="padding:0 0 6px;border-bottom:1px solid #e5e7eb;${MUTED_STYLE};font-weight:normal;">Item</th>
<th align="center" style="padding:0 0 6px 12px;border-bottom:1px solid #e5e7eb;${MUTED_STYLE};font-weight:normal;">Qty</th>
<th align="right" style="padding:0 0 6px 12px;border-bottom:1px solid #e5e7eb;${MUTED_STYLE};font-weight:normal;">Price</th>
</tr>
{%- for line in order.line_items %}
<tr>
<td align="left" style="${CELL}">{{ line.name }}
{%- if line.variant_title %}<br><span style="${MUTED_STYLE}">{{ line.variant_title }}</span>{% endif %}
{%- if line.sku %}<br><span style="${MUTED_STYLE}">SKU {{ line.sku }}</span>{% endif %}</td>
<td align="center" style="${FIGURE_CELL}">{{ line.quantity }} × {{ line.price | money }}</td>
<td align="right" style="${FIGURE_CELL}">{{ line.total | money }}</td>
</tr>
{%- endfor %}
</table>`);

const totalRow = (label: string, value: string, strong = false) =>
  `<tr>
<td align="left" style="padding:4px 0;${TEXT_STYLE};${strong ? 'font-weight:bold;' : ''}">${label}</td>
<td align="right" style="padding:4px 0;${TEXT_STYLE};${strong ? 'font-weight:bold;' : ''}">${value}</td>
</tr>`;

/** Subtotal, discount, shipping with its method, each tax line, total. */
export const HTML_TOTALS =
  htmlSection(`<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">
${totalRow('Subtotal', '{{ order.subtotal | money }}')}
{%- if order.discount_amount > 0 %}
${totalRow('Discount{% if order.coupon_code %} ({{ order.coupon_code }}){% endif %}', '−{{ order.discount_amount | money }}')}
{%- endif %}
${totalRow('Shipping{% if order.shipping_method %} ({{ order.shipping_method.name }}){% endif %}', '{{ order.shipping_amount | money }}')}
{%- for tax in order.tax_lines %}
${totalRow('{{ tax.name }} {{ tax.rate }}%{% if order.taxes_included %} (included){% endif %}', '{{ tax.amount | money }}')}
{%- endfor %}
${totalRow('Total', '{{ order.total | money }}', true)}
</table>`);

/** The shipping address, when the order has one. */
export const HTML_ADDRESS = `{%- if order.shipping_address %}
${htmlSection(`<p style="margin:0 0 4px;${MUTED_STYLE}">Shipping to</p>
<p style="margin:0;${TEXT_STYLE}">
{%- assign a = order.shipping_address %}
{%- if a.first_name or a.last_name %}{{ a.first_name }} {{ a.last_name }}<br>{% endif %}
{{ a.line1 }}<br>
{%- if a.line2 %}{{ a.line2 }}<br>{% endif %}
{{ a.postal_code }} {{ a.city }}{% if a.region %}, {{ a.region }}{% endif %}<br>
{{ a.country }}
{%- if a.phone %}<br>{{ a.phone }}{% endif %}
</p>`)}
{%- endif %}`;

/** The buyer's link to the order in the shop's account. */
export const HTML_ORDER_BUTTON = htmlSection(
  `${htmlButton('{{ order.url }}', 'View your order')}
<p style="margin:12px 0 0;${MUTED_STYLE}">Or open this link: <a href="{{ order.url }}" style="color:{{ store.colors.accent }};">{{ order.url }}</a></p>`,
);

/** Lines, totals and address: the body of every e-mail about an order. */
export const HTML_ORDER_SUMMARY = `${HTML_LINES}
${HTML_TOTALS}
${HTML_ADDRESS}`;

export const TEXT_LINES = `Items:
{%- for line in order.line_items %}
- {{ line.name }}{% if line.variant_title %} ({{ line.variant_title }}){% endif %}: {{ line.quantity }} × {{ line.price | money }} = {{ line.total | money }}
{%- endfor %}`;

export const TEXT_TOTALS = `Subtotal: {{ order.subtotal | money }}
{%- if order.discount_amount > 0 %}
Discount{% if order.coupon_code %} ({{ order.coupon_code }}){% endif %}: −{{ order.discount_amount | money }}
{%- endif %}
Shipping{% if order.shipping_method %} ({{ order.shipping_method.name }}){% endif %}: {{ order.shipping_amount | money }}
{%- for tax in order.tax_lines %}
{{ tax.name }} {{ tax.rate }}%{% if order.taxes_included %} (included){% endif %}: {{ tax.amount | money }}
{%- endfor %}
Total: {{ order.total | money }}`;

export const TEXT_ADDRESS = `{%- if order.shipping_address %}
{%- assign a = order.shipping_address %}

Shipping to:
{%- if a.first_name or a.last_name %}
{{ a.first_name }} {{ a.last_name }}
{%- endif %}
{{ a.line1 }}
{%- if a.line2 %}
{{ a.line2 }}
{%- endif %}
{{ a.postal_code }} {{ a.city }}{% if a.region %}, {{ a.region }}{% endif %}
{{ a.country }}
{%- if a.phone %}
{{ a.phone }}
{%- endif %}
{%- endif %}`;

export const TEXT_ORDER_SUMMARY = `${TEXT_LINES}

${TEXT_TOTALS}
${TEXT_ADDRESS}`;

export const TEXT_ORDER_LINK = `View your order: {{ order.url }}`;
