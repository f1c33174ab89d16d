/**
 * "Save to wishlist" on a product page says "Saved" when the signed-in shopper already saved the
 * product. The page is public and cached, so the state is asked for here (a private JSON answer);
 * without script, or signed out, the button stays as served and still works.
 */
export async function showWishlistState(root: ParentNode = document): Promise<void> {
  const form = root.querySelector<HTMLFormElement>('form.wishlist-form');
  const productId = form?.querySelector<HTMLInputElement>('input[name="productId"]')?.value;
  const button = form?.querySelector<HTMLButtonElement>('button[type="submit"]');
  if (!form || !productId || !button) return;
  const url = new URL(form.action);
  url.pathname = `${url.pathname}/state`;
  url.search = new URLSearchParams({ productId }).toString();
  try {
    const response = await fetch(url, {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    });
    if (!response.ok) return;
    const state = (await response.json()) as { wishlisted?: boolean };
    if (!state.wishlisted) return;
    button.textContent = 'Saved to your wishlist';
    const hint = document.createElement('a');
    hint.href = url.pathname.replace(/\/state$/, '');
    hint.className = 'wishlist-form__link';
    hint.textContent = 'See your wishlist';
    form.append(hint);
  } catch {
    // Offline or refused: the button as served still saves the product.
  }
}
