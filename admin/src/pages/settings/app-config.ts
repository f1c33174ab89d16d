/** Validation of the mobile app config JSON, as the API will judge it (any JSON object ≤ 64 KiB). */
export const APP_CONFIG_LIMIT = 64 * 1024;

export type AppConfigCheck =
  | { ok: true; value: Record<string, unknown>; bytes: number }
  | { ok: false; message: string };

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

export function checkAppConfig(text: string): AppConfigCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const where = position ? ` (${lineAndColumn(text, Number(position[1]))})` : '';
    return { ok: false, message: `Not valid JSON${where}: ${message.replace(/^JSON\.parse: /, '')}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return {
      ok: false,
      message: 'The app config must be a JSON object ({ … }), not an array or a single value.',
    };
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > APP_CONFIG_LIMIT)
    return {
      ok: false,
      message: `The app config is ${Math.ceil(bytes / 1024)} KiB; at most 64 KiB is accepted.`,
    };
  return { ok: true, value: value as Record<string, unknown>, bytes };
}
