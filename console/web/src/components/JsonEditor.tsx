/** A JSON text area that validates as you type and says where the JSON is wrong. */
export function parseJson(text: string): { value?: unknown; error?: string } {
  if (text.trim() === '') return { error: 'empty: type a JSON value ({} for an empty object)' };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

export function JsonEditor(props: {
  value: string;
  onChange(text: string): void;
  rows?: number;
  testId?: string;
  label?: string;
}) {
  const { error } = parseJson(props.value);
  return (
    <div className="json-editor">
      {props.label && <label>{props.label}</label>}
      <textarea
        data-testid={props.testId}
        className={error ? 'invalid' : ''}
        spellCheck={false}
        rows={props.rows ?? 8}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {error ? (
        <div className="json-error" data-testid={props.testId ? `${props.testId}-error` : undefined}>
          Invalid JSON: {error}
        </div>
      ) : (
        <div className="json-ok">valid JSON</div>
      )}
    </div>
  );
}

export function JsonView({ value, testId }: { value: unknown; testId?: string }) {
  return (
    <pre className="json-view" data-testid={testId}>
      {value === undefined ? 'undefined' : JSON.stringify(value, null, 2)}
    </pre>
  );
}
