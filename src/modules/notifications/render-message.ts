import { invalidRequest } from '../../platform/http/errors.js';
import type { TemplateParts } from './defaults/default-templates.js';
import type { RenderedMessage } from './notifications.schemas.js';
import { MAX_SUBJECT_LENGTH } from './notifications.schemas.js';
import { renderPart, TemplateError, type TemplatePart } from './template-engine.js';
import type { NotificationVariables } from './variables.js';

/** The subject as a header takes it: one line, spaces collapsed, trimmed, at most MAX_SUBJECT_LENGTH. */
export function subjectLine(rendered: string): string {
  const line = rendered.replace(/\s+/g, ' ').trim();
  return line.length > MAX_SUBJECT_LENGTH ? `${line.slice(0, MAX_SUBJECT_LENGTH - 1)}…` : line;
}

/**
 * The plain-text part tidied the way a text e-mail reads: no trailing spaces, at most one blank
 * line in a row (Liquid tags leave empty lines behind), no blank start or end.
 */
export function tidyText(rendered: string): string {
  return `${rendered
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

/** Renders the three parts; throws TemplateError (naming the part and line) when one fails. */
export function renderMessage(parts: TemplateParts, variables: NotificationVariables): RenderedMessage {
  return {
    subject: subjectLine(renderPart('subject', parts.subject, variables)),
    html: renderPart('html', parts.html, variables),
    text: tidyText(renderPart('text', parts.text, variables)),
  };
}

/** A template error as the API's 400: the message names the part and the line; details name the field. */
export function templateRejection(error: TemplateError) {
  return invalidRequest(error.message, [
    {
      field: error.part,
      message: error.line === undefined ? error.reason : `line ${error.line}: ${error.reason}`,
    },
  ]);
}

/** renderMessage for a request: a template error becomes the 400 of templateRejection. */
export function renderForRequest(parts: TemplateParts, variables: NotificationVariables): RenderedMessage {
  try {
    return renderMessage(parts, variables);
  } catch (error) {
    if (error instanceof TemplateError) throw templateRejection(error);
    throw error;
  }
}

export type { TemplatePart };
