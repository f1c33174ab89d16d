import type { FastifyRequest } from 'fastify';
import { AppError } from '../platform/http/errors.js';

/** The fields of a shop form post (shop.routes.tsx parses urlencoded bodies); nothing else counts. */
export function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  return body && typeof body === 'object' ? (body as Record<string, string>) : {};
}

/** A text field as typed, trimmed; '' when absent. */
export const textField = (form: Record<string, string>, name: string) => (form[name] ?? '').trim();

/** A whole number field in [min, max], or undefined when it is not one. */
export function intField(form: Record<string, string>, name: string, min: number, max: number) {
  const raw = textField(form, name);
  if (!/^\d{1,6}$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= min && value <= max ? value : undefined;
}

/**
 * A refusal the shopper can act on (a 4xx of a service: stock, an unknown product, a coupon, a
 * declined card), which the page shows next to the form; anything else goes to the error handler.
 */
export function isShopperError(error: unknown): error is AppError {
  return (
    error instanceof AppError && error.statusCode >= 400 && error.statusCode < 500 && error.statusCode !== 404
  );
}

export const isNotFound = (error: unknown) => error instanceof AppError && error.statusCode === 404;

/** The first detail's message of a refusal (the reason without the field's name), else its message. */
export const reasonOf = (error: AppError) => error.details?.[0]?.message ?? error.message;
