import { useState } from 'react';
import { api, enc } from '../api';
import { Confirm } from '../components/Confirm';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/hooks';
import { JsonEditor, parseJson } from '../components/JsonEditor';

interface Entry {
  key: string;
  value: unknown;
}

export function StatesPage() {
  const groups = useLoad(() => api<{ groups: string[] }>('GET', 'states/groups'), []);
  const [scope, setScope] = useState<string>();
  const [adding, setAdding] = useState(false);
  const current = scope ?? groups.data?.groups[0];
  const items = useLoad(
    () =>
      current ? api<{ items: Entry[] }>('POST', 'states/group', { scope: current }) : Promise.resolve({ items: [] }),
    [current],
  );
  const saved = (savedScope: string): void => {
    setAdding(false);
    setScope(savedScope);
    groups.reload();
    items.reload();
  };
  return (
    <div className="split three">
      <section className="list-pane narrow">
        <div className="toolbar">
          <strong>Scopes</strong>
          <button className="primary" onClick={() => setAdding(true)} data-testid="state-add">
            + Add Item
          </button>
        </div>
        {groups.error !== undefined && <ErrorBox error={groups.error} what="scopes" />}
        <ul className="nav-list" data-testid="state-scopes">
          {(groups.data?.groups ?? []).map((g) => (
            <li
              key={g}
              className={g === current ? 'selected' : ''}
              onClick={() => setScope(g)}
              data-testid={`scope-${g}`}
            >
              {g}
            </li>
          ))}
        </ul>
        {groups.data?.groups.length === 0 && <div className="empty">No state yet.</div>}
      </section>
      <section className="detail-pane wide">
        {adding && <AddItem defaultScope={current ?? ''} onSaved={saved} onCancel={() => setAdding(false)} />}
        {items.error !== undefined && <ErrorBox error={items.error} what="items" />}
        {current && (
          <ItemTable
            scope={current}
            items={items.data?.items ?? []}
            onChanged={() => (items.reload(), groups.reload())}
          />
        )}
      </section>
    </div>
  );
}

function AddItem(props: { defaultScope: string; onSaved: (scope: string) => void; onCancel: () => void }) {
  const [scope, setScope] = useState(props.defaultScope);
  const [key, setKey] = useState('');
  const [value, setValue] = useState('{}');
  const [failure, setFailure] = useState<unknown>();
  const parsed = parseJson(value);
  const save = async (): Promise<void> => {
    try {
      await api('POST', `states/${enc(scope)}/item`, { key, value: parsed.value });
      props.onSaved(scope);
    } catch (err) {
      setFailure(err);
    }
  };
  return (
    <div className="panel card" data-testid="state-add-form">
      <h3>Add Item</h3>
      <div className="row">
        <input
          placeholder="scope"
          value={scope}
          onChange={(e) => setScope(e.target.value)}
          data-testid="state-new-scope"
        />
        <input placeholder="key" value={key} onChange={(e) => setKey(e.target.value)} data-testid="state-new-key" />
      </div>
      <JsonEditor label="Value (JSON)" value={value} onChange={setValue} testId="state-new-value" rows={5} />
      {failure !== undefined && <ErrorBox error={failure} what="save" />}
      <div className="row">
        <button
          className="primary"
          disabled={parsed.error !== undefined || scope === '' || key === ''}
          onClick={() => void save()}
          data-testid="state-save"
        >
          Save
        </button>
        <button onClick={props.onCancel}>Cancel</button>
      </div>
    </div>
  );
}

function ItemTable(props: { scope: string; items: Entry[]; onChanged(): void }) {
  const [editing, setEditing] = useState<string>();
  const [deleting, setDeleting] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const remove = async (key: string): Promise<void> => {
    setDeleting(undefined);
    try {
      await api('DELETE', `states/${enc(props.scope)}/item/${enc(key)}`);
      props.onChanged();
    } catch (err) {
      setFailure(err);
    }
  };
  return (
    <div>
      <h2>
        Scope <span className="mono">{props.scope}</span> <span className="muted">({props.items.length} items)</span>
      </h2>
      {failure !== undefined && <ErrorBox error={failure} what="delete" />}
      <table className="table" data-testid="state-items">
        <thead>
          <tr>
            <th>Key</th>
            <th>Value</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {props.items.map((item) => (
            <tr key={item.key} data-testid={`state-item-${item.key}`}>
              <td className="mono">{item.key}</td>
              <td>
                {editing === item.key ? (
                  <EditValue
                    scope={props.scope}
                    item={item}
                    onDone={() => (setEditing(undefined), props.onChanged())}
                    onCancel={() => setEditing(undefined)}
                  />
                ) : (
                  <code className="value-preview" data-testid={`state-value-${item.key}`}>
                    {JSON.stringify(item.value)}
                  </code>
                )}
              </td>
              <td className="actions">
                <button onClick={() => setEditing(item.key)} data-testid={`state-edit-${item.key}`}>
                  Edit
                </button>
                <button
                  className="danger"
                  onClick={() => setDeleting(item.key)}
                  data-testid={`state-delete-${item.key}`}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deleting !== undefined && (
        <Confirm
          message={`Delete "${deleting}" from scope "${props.scope}"? This cannot be undone.`}
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(undefined)}
        />
      )}
    </div>
  );
}

function EditValue(props: { scope: string; item: Entry; onDone: () => void; onCancel: () => void }) {
  const [value, setValue] = useState(JSON.stringify(props.item.value, null, 2));
  const [failure, setFailure] = useState<unknown>();
  const parsed = parseJson(value);
  const save = async (): Promise<void> => {
    try {
      await api('POST', `states/${enc(props.scope)}/item`, { key: props.item.key, value: parsed.value });
      props.onDone();
    } catch (err) {
      setFailure(err);
    }
  };
  return (
    <div>
      <JsonEditor value={value} onChange={setValue} testId="state-edit-value" rows={5} />
      {failure !== undefined && <ErrorBox error={failure} what="save" />}
      <div className="row">
        <button
          className="primary"
          disabled={parsed.error !== undefined}
          onClick={() => void save()}
          data-testid="state-edit-save"
        >
          Save
        </button>
        <button onClick={props.onCancel}>Cancel</button>
      </div>
    </div>
  );
}
