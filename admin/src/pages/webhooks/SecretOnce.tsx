import { Modal } from '../../components/dialogs';
import { Button, CopyButton } from '../../components/ui';

/** A secret the API returns only once: shown here, with a copy button and a clear warning. */
export function SecretOnce({
  title,
  secret,
  what,
  onClose,
}: {
  title: string;
  secret: string;
  what: string;
  onClose: () => void;
}) {
  return (
    <Modal open title={title} onClose={onClose}>
      <div className="stack">
        <p>
          Copy the {what} now: <strong>it is shown only this once</strong> and cannot be read again.
        </p>
        <div className="secret">
          <code data-testid="secret-value">{secret}</code>
          <CopyButton text={secret} />
        </div>
        <div className="form-actions">
          <Button variant="primary" onClick={onClose}>
            I have copied it
          </Button>
        </div>
      </div>
    </Modal>
  );
}
