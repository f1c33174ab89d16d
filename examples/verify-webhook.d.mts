export function verifyWebhook(input: {
  secret: string;
  headers: Record<string, string | string[] | undefined> | Headers;
  body: string | Buffer;
  toleranceSeconds?: number;
  now?: Date;
}): { ok: true; id: string; event: string | undefined; test: boolean } | { ok: false; reason: string };
