/**
 * The config reference (docs/config.md), rendered from the zod schemas themselves (through their JSON Schema), so
 * the reference cannot drift from what the engine and the workers accept. `npm run docs:config` writes it;
 * test/docs/config-docs.test.ts fails when the file is not what this renders.
 */
import { z } from 'zod';
import { CAPABILITY_WORKERS, MODULE_CLASSES, MODULE_CONFIG_SCHEMAS, type ModuleClass } from './catalog.js';
import { engineKeysSchema } from './schema.js';

/** The part of a JSON Schema node the reference reads. */
interface Node {
  type?: string | string[];
  description?: string;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, Node>;
  required?: string[];
  items?: Node;
  additionalProperties?: Node | boolean;
  oneOf?: Node[];
  anyOf?: Node[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  minItems?: number;
}

interface Row {
  key: string;
  type: string;
  default: string;
  description: string;
}

interface Variant {
  /** `adapter.class` */
  key: string;
  value: string;
  rows: Row[];
}

const HEADER = `# Config reference

<!-- Generated from the zod schemas by \`npm run docs:config\`; do not edit by hand. -->

Every key svc accepts in \`svc-config.yaml\`, with its type, its default and what it does. The file has the engine's
keys at the top level and a \`modules:\` list (also accepted as \`workers:\`); each entry is \`class:\` (or, for a
capability worker, \`name:\`) plus a \`config:\` object. Every object is strict: an unknown key is an error that names
its path. Any string may use \`\${VAR}\` or \`\${VAR:default}\` (environment substitution). A capability worker
started on its own reads the same \`config:\` object from \`--config <file>\` or \`SVC_MODULE_CONFIG\`.
`;

export function renderConfigReference(): string {
  const parts = [HEADER, section('Engine (top level)', undefined, engineKeysSchema)];
  for (const cls of Object.values(MODULE_CLASSES)) parts.push(moduleSection(cls));
  return `${parts.join('\n')}`;
}

function moduleSection(cls: ModuleClass): string {
  const worker = CAPABILITY_WORKERS.find((w) => w.class === cls);
  const runs = worker
    ? `Runs as the capability worker \`${worker.name}\` (\`workers/${worker.dir}\`); \`name: ${worker.name}\` selects it too.`
    : 'An engine module (runs inside the engine process).';
  return section(`\`${cls}\``, runs, MODULE_CONFIG_SCHEMAS[cls]);
}

function section(title: string, intro: string | undefined, schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Node;
  const rows: Row[] = [];
  const variants: Variant[] = [];
  walk(json, '', rows, variants);
  const out = [`## ${title}`, ''];
  if (intro) out.push(intro, '');
  out.push(rows.length > 0 ? table(rows) : 'No keys.', '');
  for (const v of variants) {
    out.push(`### \`${v.key}: ${v.value}\``, '', v.rows.length > 0 ? table(v.rows) : 'No keys.', '');
  }
  return out.join('\n');
}

function walk(node: Node, prefix: string, rows: Row[], variants: Variant[]): void {
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const key = prefix ? `${prefix}.${name}` : name;
    const required = node.required?.includes(name) ?? false;
    const union = classVariants(child);
    if (union) {
      rows.push(row(key, child, required, `one of ${union.map((v) => `\`${classOf(v)}\``).join(', ')}`));
      for (const v of union) {
        const inner: Row[] = [];
        walk(v, key, inner, variants);
        variants.push({
          key: `${key}.class`,
          value: classOf(v),
          rows: inner.filter((r) => r.key !== `\`${key}.class\``),
        });
      }
    } else if (isObject(child)) {
      if (child.description) rows.push(row(key, child, required));
      walk(child, key, rows, variants);
    } else if (isMapOfObjects(child)) {
      rows.push(row(key, child, required));
      walk(child.additionalProperties as Node, `${key}.<name>`, rows, variants);
    } else {
      rows.push(row(key, child, required));
    }
  }
}

/** The variants of an adapter-style union (`{ class: <const>, config }` objects), or undefined. */
function classVariants(node: Node): Node[] | undefined {
  const options = node.oneOf ?? node.anyOf;
  if (!options || !options.every((o) => o.properties?.['class']?.const !== undefined)) return undefined;
  return options;
}

const classOf = (node: Node): string => String(node.properties?.['class']?.const);
const isObject = (node: Node): boolean => node.type === 'object' && node.properties !== undefined;
const isMapOfObjects = (node: Node): boolean =>
  typeof node.additionalProperties === 'object' && isObject(node.additionalProperties);

function row(key: string, node: Node, required: boolean, type?: string): Row {
  const dflt = node.default !== undefined ? `\`${JSON.stringify(node.default)}\`` : required ? 'required' : '—';
  return { key: `\`${key}\``, type: type ?? typeOf(node), default: dflt, description: node.description ?? '' };
}

function typeOf(node: Node): string {
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  if (node.enum) return node.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' or ');
  const options = node.anyOf ?? node.oneOf;
  if (options) return options.map(typeOf).join(' or ');
  const type = Array.isArray(node.type) ? node.type.join(' or ') : (node.type ?? 'any');
  if (type === 'array') return `list of ${node.items ? typeOf(node.items) : 'any'}${bounds(node)}`;
  if (type === 'object' && typeof node.additionalProperties === 'object') {
    return `map of name → ${isObject(node.additionalProperties) ? 'object' : typeOf(node.additionalProperties)}`;
  }
  return `${type}${bounds(node)}`;
}

function bounds(node: Node): string {
  const max = node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER ? node.maximum : undefined;
  const min = node.exclusiveMinimum !== undefined ? `> ${node.exclusiveMinimum}` : undefined;
  if (node.minimum !== undefined && max !== undefined) return ` ${node.minimum}–${max}`;
  if (node.minimum !== undefined) return ` ≥ ${node.minimum}`;
  if (min !== undefined) return ` ${min}${max !== undefined ? `, ≤ ${max}` : ''}`;
  if (max !== undefined) return ` ≤ ${max}`;
  if (node.minLength) return ' (not empty)';
  if (node.minItems) return `, at least ${node.minItems}`;
  return '';
}

function table(rows: Row[]): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = ['| key | type | default | description |', '|---|---|---|---|'];
  for (const r of rows)
    lines.push(`| ${cell(r.key)} | ${cell(r.type)} | ${cell(r.default)} | ${cell(r.description)} |`);
  return lines.join('\n');
}
