import type { NotificationKind } from '../kinds.js';
import { HEADING_STYLE, htmlButton, htmlLayout, htmlSection, MUTED_STYLE, textLayout } from './layout.js';
import {
  HTML_ORDER_BUTTON,
  HTML_ORDER_SUMMARY,
  TEXT_ORDER_LINK,
  TEXT_ORDER_SUMMARY,
} from './order-pieces.js';

/** A kind's template: Liquid sources of its three parts. */
export interface TemplateParts {
  subject: string;
  html: string;
  text: string;
}

const heading = (text: string) => `<h1 style="${HEADING_STYLE}">${text}</h1>`;
const paragraph = (text: string) => `<p style="margin:0 0 12px;">${text}</p>`;
const greeting = '{% if customer.first_name %}Hi {{ customer.first_name }},{% else %}Hello,{% endif %}';

/** An e-mail to the buyer about their order: heading, words, then the order's summary and link. */
function buyerOrderMail(title: string, html: string, text: string, subject: string): TemplateParts {
  return {
    subject,
    html: htmlLayout(
      title,
      `${htmlSection(`${heading(title)}
${paragraph(greeting)}
${html}`)}
${HTML_ORDER_SUMMARY}
${HTML_ORDER_BUTTON}`,
    ),
    text: textLayout(`${title}

${greeting}

${text}

${TEXT_ORDER_SUMMARY}

${TEXT_ORDER_LINK}`),
  };
}

const TRACKING_HTML = `{%- if shipment.carrier or shipment.tracking_number %}
<p style="margin:0 0 12px;">
{%- if shipment.carrier %}Carrier: <strong>{{ shipment.carrier }}</strong><br>{% endif %}
{%- if shipment.tracking_number %}Tracking number: <strong>{{ shipment.tracking_number }}</strong>{% endif %}
</p>
{%- endif %}
{%- if shipment.tracking_url %}
${htmlButton('{{ shipment.tracking_url }}', 'Track your package')}
<p style="margin:12px 0 0;${MUTED_STYLE}">Tracking link: <a href="{{ shipment.tracking_url }}" style="color:{{ store.colors.accent }};">{{ shipment.tracking_url }}</a></p>
{%- endif %}`;

const TRACKING_TEXT = `{%- if shipment.carrier %}
Carrier: {{ shipment.carrier }}
{%- endif %}
{%- if shipment.tracking_number %}
Tracking number: {{ shipment.tracking_number }}
{%- endif %}
{%- if shipment.tracking_url %}
Track your package: {{ shipment.tracking_url }}
{%- endif %}`;

const ORDER_CONFIRMATION = buyerOrderMail(
  'Thank you for your order',
  paragraph(
    'We have received your order <strong>#{{ order.order_number }}</strong> and will let you know when it ships.',
  ),
  'We have received your order #{{ order.order_number }} and will let you know when it ships.',
  'Order #{{ order.order_number }} confirmed — {{ store.name }}',
);

const SHIPPING_CONFIRMATION = buyerOrderMail(
  'Your order is on its way',
  `${paragraph('Good news: your order <strong>#{{ order.order_number }}</strong> has shipped.')}
${TRACKING_HTML}`,
  `Good news: your order #{{ order.order_number }} has shipped.
${TRACKING_TEXT}`,
  'Order #{{ order.order_number }} has shipped — {{ store.name }}',
);

const ORDER_CANCELLED = buyerOrderMail(
  'Your order was cancelled',
  `${paragraph('Your order <strong>#{{ order.order_number }}</strong> has been cancelled.')}
{%- if order.cancel_reason %}
${paragraph('Reason: {{ order.cancel_reason }}')}
{%- endif %}
${paragraph('If you were charged, the payment will be refunded. Reply to this e-mail if you have any question.')}`,
  `Your order #{{ order.order_number }} has been cancelled.
{%- if order.cancel_reason %}
Reason: {{ order.cancel_reason }}
{%- endif %}
If you were charged, the payment will be refunded. Reply to this e-mail if you have any question.`,
  'Order #{{ order.order_number }} cancelled — {{ store.name }}',
);

const REFUND_ISSUED = buyerOrderMail(
  'Your refund is on its way',
  `${paragraph('We have refunded <strong>{{ refund.amount | money }}</strong> for your order <strong>#{{ order.order_number }}</strong>.')}
{%- if refund.reason %}
${paragraph('Reason: {{ refund.reason }}')}
{%- endif %}
${paragraph('Refunded so far: {{ refund.total_refunded | money }}. Still paid: {{ refund.remaining_paid | money }}.')}
${paragraph('Depending on your bank, it may take a few days to appear on your statement.')}`,
  `We have refunded {{ refund.amount | money }} for your order #{{ order.order_number }}.
{%- if refund.reason %}
Reason: {{ refund.reason }}
{%- endif %}
Refunded so far: {{ refund.total_refunded | money }}. Still paid: {{ refund.remaining_paid | money }}.
Depending on your bank, it may take a few days to appear on your statement.`,
  'Refund of {{ refund.amount | money }} for order #{{ order.order_number }} — {{ store.name }}',
);

const BACK_IN_STOCK: TemplateParts = {
  subject: '{{ product.name }} is back in stock — {{ store.name }}',
  html: htmlLayout(
    'Back in stock',
    htmlSection(
      `${heading('{{ product.name }} is back in stock')}
${paragraph('Hello,')}
${paragraph('You asked us to tell you when <strong>{{ product.name }}</strong>{% if product.variant %} ({{ product.variant.title }}){% endif %} is available again. It is back, at <strong>{{ product.price | money }}</strong>, while stock lasts.')}
${htmlButton('{{ product.url }}', 'Shop now')}
<p style="margin:12px 0 0;${MUTED_STYLE}">Or open this link: <a href="{{ product.url }}" style="color:{{ store.colors.accent }};">{{ product.url }}</a></p>`,
      '24px',
    ),
  ),
  text: textLayout(`{{ product.name }} is back in stock

Hello,

You asked us to tell you when {{ product.name }}{% if product.variant %} ({{ product.variant.title }}){% endif %} is available again. It is back, at {{ product.price | money }}, while stock lasts.

Shop now: {{ product.url }}`),
};

const NEW_ORDER: TemplateParts = {
  subject: 'New order #{{ order.order_number }} ({{ order.total | money }}) — {{ store.name }}',
  html: htmlLayout(
    'New order',
    `${htmlSection(`${heading('New order #{{ order.order_number }}')}
${paragraph('{% if customer.first_name or customer.last_name %}{{ customer.first_name }} {{ customer.last_name }} ({{ customer.email }}){% else %}{{ customer.email }}{% endif %} placed an order of <strong>{{ order.total | money }}</strong>.')}
${paragraph('Payment: {{ order.payment_status }}{% if order.payment_method %} ({{ order.payment_method }}){% endif %}')}`)}
${HTML_ORDER_SUMMARY}
${htmlSection(`${htmlButton('{{ order.admin_url }}', 'Open the order')}
<p style="margin:12px 0 0;${MUTED_STYLE}">{{ order.admin_url }}</p>`)}`,
  ),
  text: textLayout(`New order #{{ order.order_number }}

{% if customer.first_name or customer.last_name %}{{ customer.first_name }} {{ customer.last_name }} ({{ customer.email }}){% else %}{{ customer.email }}{% endif %} placed an order of {{ order.total | money }}.
Payment: {{ order.payment_status }}{% if order.payment_method %} ({{ order.payment_method }}){% endif %}

${TEXT_ORDER_SUMMARY}

Open the order: {{ order.admin_url }}`),
};

const LOW_STOCK: TemplateParts = {
  subject:
    'Low stock: {{ product.name }}{% if product.variant %} ({{ product.variant.title }}){% endif %}, {{ quantity }} left — {{ store.name }}',
  html: htmlLayout(
    'Low stock',
    htmlSection(
      `${heading('Low stock: {{ product.name }}')}
${paragraph('<strong>{{ product.name }}</strong>{% if product.variant %} ({{ product.variant.title }}){% endif %} has <strong>{{ quantity }}</strong> left in stock, at or below its threshold of {{ threshold }}.')}
{%- assign sku = product.variant.sku | default: product.sku %}
{%- if sku %}
${paragraph('SKU: {{ sku }}')}
{%- endif %}
${htmlButton('{{ product.admin_url }}', 'Open the product')}
<p style="margin:12px 0 0;${MUTED_STYLE}">{{ product.admin_url }}</p>`,
      '24px',
    ),
  ),
  text: textLayout(`Low stock: {{ product.name }}

{{ product.name }}{% if product.variant %} ({{ product.variant.title }}){% endif %} has {{ quantity }} left in stock, at or below its threshold of {{ threshold }}.
{%- assign sku = product.variant.sku | default: product.sku %}
{%- if sku %}
SKU: {{ sku }}
{%- endif %}

Open the product: {{ product.admin_url }}`),
};

/** The default template of every kind (contract §13: English, like the shop). */
export const DEFAULT_TEMPLATES: Readonly<Record<NotificationKind, TemplateParts>> = Object.freeze({
  order_confirmation: ORDER_CONFIRMATION,
  shipping_confirmation: SHIPPING_CONFIRMATION,
  order_cancelled: ORDER_CANCELLED,
  refund_issued: REFUND_ISSUED,
  back_in_stock: BACK_IN_STOCK,
  new_order: NEW_ORDER,
  low_stock: LOW_STOCK,
});
