import { type ShopContext, shopHref } from '../shop-context.js';

/** What the form shows again after a refused sign-up: the address typed, the variant, the reason. */
export interface NotifyMeState {
  email?: string;
  variantId?: string;
  error?: string;
}

/**
 * "Email me when it's back" on a sold-out product page (contract §13): a plain form post, so it works
 * without JavaScript. With variants, the shopper picks which sold-out one; `preferred` (the variant
 * shown first) is picked when it is sold out. Refusals come back on the page, beside the field.
 */
export function NotifyMeForm({
  shop,
  productSlug,
  soldOut,
  preferred,
  state = {},
}: {
  shop: ShopContext;
  productSlug: string;
  /** The sold-out variants (empty for a product without variants). */
  soldOut: { id: string; title: string }[];
  preferred?: string;
  state?: NotifyMeState;
}) {
  const chosen =
    soldOut.find((v) => v.id === state.variantId)?.id ??
    soldOut.find((v) => v.id === preferred)?.id ??
    soldOut[0]?.id;
  const errorId = 'notify-me-error';
  return (
    <form
      className="notify-me"
      id="notify-me"
      method="post"
      action={shopHref(shop, `/products/${encodeURIComponent(productSlug)}/notify-me`)}
      aria-labelledby="notify-me-title"
    >
      <h2 id="notify-me-title" className="notify-me__title">
        Email me when it's back
      </h2>
      <p className="muted notify-me__hint">One e-mail when it is back in stock; nothing else.</p>
      {soldOut.length > 0 ? (
        <div className="field">
          {/* Neither the option's name nor the field's: the add-to-cart picker above has both */}
          <label htmlFor="notify-me-variant">Notify me about</label>
          <select id="notify-me-variant" name="notifyVariantId" defaultValue={chosen}>
            {soldOut.map((v) => (
              <option key={v.id} value={v.id}>
                {v.title}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div className="field">
        <label htmlFor="notify-me-email">E-mail address</label>
        <input
          id="notify-me-email"
          type="email"
          name="email"
          autoComplete="email"
          required
          maxLength={254}
          defaultValue={state.email}
          aria-invalid={state.error ? true : undefined}
          aria-describedby={state.error ? errorId : undefined}
          // biome-ignore lint/a11y/noAutofocus: a refused form is shown again: the field to fix is where the shopper goes
          autoFocus={state.error ? true : undefined}
        />
        {state.error ? (
          <p className="field-error" id={errorId} role="alert">
            {state.error}
          </p>
        ) : null}
      </div>
      <button type="submit" className="button--secondary notify-me__submit">
        Email me when it's back
      </button>
    </form>
  );
}
