import { Notice } from '../components/account-layout.js';
import { Frame } from '../components/frame.js';
import { type ShopContext, shopHref } from '../shop-context.js';

const META = { description: 'Sign in to see your orders, addresses and wishlist.', noindex: true };

function ReturnField({ returnPath }: { returnPath: string | undefined }) {
  return returnPath ? <input type="hidden" name="return" value={returnPath} /> : null;
}

/** Step 1: the shopper's e-mail address, where the one-time code goes. */
export function SignInPage({
  shop,
  email,
  error,
  returnPath,
}: {
  shop: ShopContext;
  email?: string;
  error?: string;
  returnPath?: string;
}) {
  return (
    <Frame shop={shop} meta={{ title: 'Sign in', ...META }}>
      <section className="auth-card">
        <h1>Sign in</h1>
        <p className="muted">
          Enter your e-mail address and we will send you a 6‑digit code. No password needed; new shoppers get
          an account the first time they sign in.
        </p>
        {error ? <Notice kind="error">{error}</Notice> : null}
        <form method="post" action={shopHref(shop, '/account/sign-in')}>
          <ReturnField returnPath={returnPath} />
          <div className="field">
            <label htmlFor="sign-in-email">E-mail address</label>
            <input
              id="sign-in-email"
              type="email"
              name="email"
              autoComplete="email"
              required
              maxLength={254}
              defaultValue={email}
              // biome-ignore lint/a11y/noAutofocus: the page's one field; the shopper came here to type in it
              autoFocus
              aria-invalid={error ? true : undefined}
            />
          </div>
          <button type="submit" className="auth-card__submit">
            Send me a code
          </button>
        </form>
      </section>
    </Frame>
  );
}

/** Step 2: the code from the e-mail (or a new code, or another address). */
export function VerifyPage({
  shop,
  email,
  error,
  returnPath,
  resent,
}: {
  shop: ShopContext;
  email: string;
  error?: string;
  returnPath?: string;
  /** Came from "Send a new code": say that a new one is on its way. */
  resent?: boolean;
}) {
  const back = `/account/sign-in${returnPath ? `?return=${encodeURIComponent(returnPath)}` : ''}`;
  return (
    <Frame shop={shop} meta={{ title: 'Enter your code', ...META }}>
      <section className="auth-card">
        <h1>Check your e-mail</h1>
        <p>
          If <strong>{email}</strong> can receive mail, a 6‑digit code is on its way. It is valid for 10
          minutes.
        </p>
        {resent && !error ? (
          <Notice kind="success">A new code is on its way; use the newest one.</Notice>
        ) : null}
        {error ? <Notice kind="error">{error}</Notice> : null}
        <form method="post" action={shopHref(shop, '/account/verify')}>
          <input type="hidden" name="email" value={email} />
          <ReturnField returnPath={returnPath} />
          <div className="field">
            <label htmlFor="verify-code">6-digit code</label>
            <input
              id="verify-code"
              className="code-input"
              type="text"
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              minLength={6}
              maxLength={6}
              required
              // biome-ignore lint/a11y/noAutofocus: the page's one field; the shopper came here to type in it
              autoFocus
              aria-describedby="verify-code-hint"
              aria-invalid={error ? true : undefined}
            />
            <span id="verify-code-hint" className="muted field__hint">
              The code is in the e-mail we just sent.
            </span>
          </div>
          <button type="submit" className="auth-card__submit">
            Sign in
          </button>
        </form>
        <div className="auth-card__more">
          <form method="post" action={shopHref(shop, '/account/sign-in')}>
            <input type="hidden" name="email" value={email} />
            <input type="hidden" name="again" value="1" />
            <ReturnField returnPath={returnPath} />
            <button type="submit" className="link-button">
              Send a new code
            </button>
          </form>
          <a href={shopHref(shop, back)}>Use another e-mail address</a>
        </div>
      </section>
    </Frame>
  );
}
