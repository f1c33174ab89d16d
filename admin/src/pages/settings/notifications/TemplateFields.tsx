import { TextAreaField, TextField } from '../../../components/ui';
import { lineOf, type TemplatePart, type TemplateParts } from './notification-text';

/** A part's error as shown beside it: the API's message, which names the line. */
function withLine(message: string | undefined): string | undefined {
  if (!message) return undefined;
  const line = lineOf(message);
  return line !== undefined && !/^line\b/i.test(message) ? `Line ${line}: ${message}` : message;
}

/** The three parts of a template, in monospace, each with the error the API gave for it. */
export function TemplateFields({
  draft,
  errors,
  onEdit,
}: {
  draft: TemplateParts;
  errors: Partial<Record<TemplatePart | 'other', string>>;
  onEdit: (part: TemplatePart, value: string) => void;
}) {
  return (
    <>
      <TextField
        label="Subject"
        className="template-field"
        value={draft.subject}
        onChange={(e) => onEdit('subject', e.target.value)}
        error={withLine(errors.subject)}
        spellCheck={false}
        autoComplete="off"
      />
      <TextAreaField
        label="HTML body"
        className="template-field"
        rows={16}
        value={draft.html}
        onChange={(e) => onEdit('html', e.target.value)}
        error={withLine(errors.html)}
        hint="Liquid. Values are HTML-escaped unless followed by | raw."
        spellCheck={false}
        autoComplete="off"
      />
      <TextAreaField
        label="Plain-text body"
        className="template-field"
        rows={10}
        value={draft.text}
        onChange={(e) => onEdit('text', e.target.value)}
        error={withLine(errors.text)}
        hint="The part shown by mail clients that do not show HTML; nothing is escaped."
        spellCheck={false}
        autoComplete="off"
      />
    </>
  );
}
