import { generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

export interface FcmSend {
  path: string;
  authorization: string | undefined;
  /** The parsed JSON body: `{ message: { token, notification, data } }`. */
  body: {
    message: {
      token: string;
      notification: { title: string; body: string };
      data?: Record<string, string>;
    };
  };
}

export interface FcmAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Holds the answer back this long (a slow FCM). */
  delayMs?: number;
}

/** What FCM answers for a token that is no longer registered. */
export const UNREGISTERED: FcmAnswer = {
  status: 404,
  body: {
    error: {
      code: 404,
      message: 'Requested entity was not found.',
      status: 'NOT_FOUND',
      details: [
        { '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' },
      ],
    },
  },
};

/** What FCM answers for a token that is not a token at all. */
export const INVALID_TOKEN: FcmAnswer = {
  status: 400,
  body: {
    error: {
      code: 400,
      message: 'The registration token is not a valid FCM registration token',
      status: 'INVALID_ARGUMENT',
      details: [
        { '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'INVALID_ARGUMENT' },
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ field: 'message.token', description: 'Invalid registration token' }],
        },
      ],
    },
  },
};

export const UNAVAILABLE: FcmAnswer = {
  status: 503,
  body: { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } },
  headers: { 'retry-after': '7' },
};

function decodeJson(part: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
}

/** Checks a service-account assertion as Google does; returns why it is refused, or undefined. */
export function checkAssertion(
  jwt: string,
  publicKey: KeyObject,
  expected: { iss: string; aud: string; scope: string },
): string | undefined {
  const parts = jwt.split('.');
  if (parts.length !== 3) return 'not a JWT';
  const [header, claims, signature] = parts as [string, string, string];
  if (!verify('sha256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature, 'base64url')))
    return 'bad signature';
  const h = decodeJson(header);
  if (h.alg !== 'RS256' || h.typ !== 'JWT') return `bad header ${JSON.stringify(h)}`;
  const c = decodeJson(claims);
  if (c.iss !== expected.iss) return `bad iss ${c.iss}`;
  if (c.aud !== expected.aud) return `bad aud ${c.aud}`;
  if (c.scope !== expected.scope) return `bad scope ${c.scope}`;
  // Google allows a few minutes of clock skew; an hour here lets tests move the signer's clock.
  const now = Date.now() / 1000;
  if (typeof c.iat !== 'number' || Math.abs(c.iat - now) > 3600) return `bad iat ${c.iat}`;
  if (c.exp !== c.iat + 3600) return `bad exp ${c.exp}`;
  return undefined;
}

/**
 * A local stand-in for Google: an OAuth 2.0 token endpoint that verifies the service-account JWT
 * with the public key of a key pair made here, and an FCM HTTP v1 endpoint that accepts only the
 * access tokens it issued, records each message and answers what `respond` says (200 by default).
 */
export async function startFakeFcm(options: { projectId?: string; expiresIn?: number } = {}) {
  const projectId = options.projectId ?? 'emporium-test';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issued = new Set<string>();
  let tokensIssued = 0;
  const tokenRequests: { grantType: string | null; refused?: string }[] = [];
  const sends: FcmSend[] = [];
  let respond: (send: FcmSend) => FcmAnswer = () => ({ status: 200 });
  let url = '';

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && req.url === '/token') {
        const form = new URLSearchParams(raw);
        const request: (typeof tokenRequests)[number] = { grantType: form.get('grant_type') };
        tokenRequests.push(request);
        if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
          request.refused = 'content type';
        } else if (request.grantType !== JWT_BEARER) {
          request.refused = 'unsupported_grant_type';
        } else {
          request.refused = checkAssertion(form.get('assertion') ?? '', publicKey, {
            iss: account.client_email,
            aud: account.token_uri,
            scope: FCM_SCOPE,
          });
        }
        if (request.refused)
          return answer(400, { error: 'invalid_grant', error_description: request.refused });
        const token = `ya29.test-${++tokensIssued}`;
        issued.add(token);
        return answer(200, {
          access_token: token,
          expires_in: options.expiresIn ?? 3599,
          token_type: 'Bearer',
        });
      }
      const match = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? '');
      if (req.method === 'POST' && match) {
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (!bearer || !issued.has(bearer)) {
          return answer(401, { error: { code: 401, message: 'bad credentials', status: 'UNAUTHENTICATED' } });
        }
        if (match[1] !== projectId) return answer(404, { error: { code: 404, status: 'NOT_FOUND' } });
        const send: FcmSend = {
          path: req.url ?? '',
          authorization: req.headers.authorization,
          body: JSON.parse(raw),
        };
        sends.push(send);
        const reply = respond(send);
        const body = reply.body ?? { name: `projects/${projectId}/messages/${sends.length}` };
        if (!reply.delayMs) return answer(reply.status, body, reply.headers);
        setTimeout(() => answer(reply.status, body, reply.headers), reply.delayMs);
        return;
      }
      answer(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const account = {
    type: 'service_account',
    project_id: projectId,
    private_key_id: 'test-key',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: `push@${projectId}.iam.gserviceaccount.com`,
    token_uri: `${url}/token`,
  };

  return {
    url,
    projectId,
    publicKey,
    /** The service-account JSON, as FCM_SERVICE_ACCOUNT takes it. */
    account,
    /** For createFcmProvider / Config.fcm. */
    config: {
      projectId,
      endpoint: url,
      clientEmail: account.client_email,
      privateKey: account.private_key,
      tokenUri: account.token_uri,
    },
    issued,
    tokenRequests,
    sends,
    respondWith(next: (send: FcmSend) => FcmAnswer) {
      respond = next;
    },
    /** Forgets the access tokens issued so far (as if they had been revoked). */
    revokeTokens() {
      issued.clear();
    },
    async waitFor(predicate: () => boolean, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > until) throw new Error('the fake FCM never saw what was expected');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeFcm = Awaited<ReturnType<typeof startFakeFcm>>;
