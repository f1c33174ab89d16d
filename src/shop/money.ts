const formatters = new Map<string, Intl.NumberFormat>();

/**
 * A price as the shop shows it (`$1,234.50`, `¥1,200`): the storefront's decimal amount in the
 * store's currency, in English formatting. Formatters are built once per currency (building one
 * costs more than rendering a product card).
 */
export function formatMoney(amount: number | string, currency: string): string {
  let formatter = formatters.get(currency);
  if (!formatter) {
    formatter = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    formatters.set(currency, formatter);
  }
  return formatter.format(Number(amount));
}
