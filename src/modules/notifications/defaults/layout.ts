/**
 * The frame every default HTML e-mail shares, as Liquid source composed in TypeScript (templates
 * have no file includes): a 600 px table with inline styles, which common mail clients (Outlook's
 * Word engine included) draw as intended. No script, no external CSS, no image but the store's logo
 * (an absolute URL the store set), no tracking pixel.
 */

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

/** The inline style of body text: the store's text colour. */
export const TEXT_STYLE = `${FONT};font-size:15px;line-height:1.5;color:{{ store.colors.text }}`;
export const MUTED_STYLE = `${FONT};font-size:13px;line-height:1.5;color:#6b7280`;
export const HEADING_STYLE = `${FONT};font-size:22px;line-height:1.3;font-weight:bold;color:{{ store.colors.text }};margin:0 0 12px`;

/** The store's logo, else its name, on a band of its primary colour. */
const HEADER = `<tr>
<td style="background-color:{{ store.colors.primary }};padding:20px 24px;" align="left">
{%- if store.logo %}
<a href="{{ store.shop_url }}" style="text-decoration:none;"><img src="{{ store.logo }}" alt="{{ store.name }}" height="40" style="display:block;height:40px;max-width:240px;border:0;outline:none;"></a>
{%- else %}
<a href="{{ store.shop_url }}" style="${FONT};font-size:20px;font-weight:bold;color:#ffffff;text-decoration:none;">{{ store.name }}</a>
{%- endif %}
</td>
</tr>`;

const FOOTER = `<tr>
<td style="padding:16px 24px 24px;${MUTED_STYLE};" align="left">
{{ store.name }}{% if store.contact_email %} · <a href="mailto:{{ store.contact_email }}" style="color:#6b7280;">{{ store.contact_email }}</a>{% endif %}<br>
<a href="{{ store.shop_url }}" style="color:#6b7280;">{{ store.shop_url }}</a>
</td>
</tr>`;

/** A whole HTML message around `content` (rows of the inner table). */
export function htmlLayout(title: string, content: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${title}</title>
</head>
<body style="margin:0;padding:0;background-color:#f3f4f6;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#f3f4f6;">
<tr>
<td align="center" style="padding:24px 12px;">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background-color:{{ store.colors.background }};border-radius:6px;overflow:hidden;">
${HEADER}
${content}
${FOOTER}
</table>
</td>
</tr>
</table>
</body>
</html>
`;
}

/** One padded row of the message with the given inner HTML. */
export function htmlSection(inner: string, padding = '24px 24px 0'): string {
  return `<tr>
<td style="padding:${padding};${TEXT_STYLE};" align="left">
${inner}
</td>
</tr>`;
}

/** A link drawn as a button in the store's accent colour (a table cell: Outlook ignores padding on <a>). */
export function htmlButton(href: string, label: string): string {
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0 0;">
<tr>
<td style="background-color:{{ store.colors.accent }};border-radius:4px;" align="center">
<a href="${href}" style="display:inline-block;padding:12px 22px;${FONT};font-size:15px;font-weight:bold;color:#ffffff;text-decoration:none;">${label}</a>
</td>
</tr>
</table>`;
}

/** The plain-text frame: a heading line, the content, and the store's sign-off. */
export function textLayout(content: string): string {
  return `${content}

--
{{ store.name }}
{{ store.shop_url }}
{%- if store.contact_email %}
{{ store.contact_email }}
{%- endif %}
`;
}
