/** A confirmation dialog for destructive actions (delete an item, discard a dead letter). */
export function Confirm(props: {
  message: string;
  onConfirm: () => void;
  onCancel: () => void;
  confirmLabel?: string;
}) {
  return (
    <div className="modal-backdrop" role="dialog" aria-modal="true" data-testid="confirm-dialog">
      <div className="modal">
        <p>{props.message}</p>
        <div className="row end">
          <button onClick={props.onCancel} data-testid="confirm-cancel">
            Cancel
          </button>
          <button className="danger" onClick={props.onConfirm} data-testid="confirm-ok">
            {props.confirmLabel ?? 'Delete'}
          </button>
        </div>
      </div>
    </div>
  );
}
