/**
 * A small writer of the Prometheus text exposition format, version 0.0.4: `# HELP` and `# TYPE`
 * lines, then one sample per line with escaped label values.
 */

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge';
export type Labels = Readonly<Record<string, string | number>>;

const escapeHelp = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

export class PrometheusText {
  private readonly lines: string[] = [];
  private readonly declared = new Set<string>();

  /** Declares a metric family; each name may be declared once, before its samples. */
  family(name: string, type: MetricType, help: string): this {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new Error(`invalid metric name ${JSON.stringify(name)}`);
    if (this.declared.has(name)) throw new Error(`metric ${name} declared twice`);
    this.declared.add(name);
    this.lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    return this;
  }

  sample(name: string, value: number, labels: Labels = {}): this {
    if (!this.declared.has(name)) throw new Error(`sample of undeclared metric ${name}`);
    const entries = Object.entries(labels);
    const labelText = entries.length === 0 ? '' : `{${entries.map(([k, v]) => `${k}="${escapeLabel(String(v))}"`).join(',')}}`;
    this.lines.push(`${name}${labelText} ${formatValue(value)}`);
    return this;
  }

  toString(): string {
    return `${this.lines.join('\n')}\n`;
  }
}

/** One parsed sample of the exposition format (for tests and the conformance suites' checks). */
export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses the text format strictly enough to catch malformed output: every non-comment line must be
 * `name{labels} value`, every sample's family must have a `# TYPE` line before it.
 */
export function parsePrometheusText(text: string): { types: Map<string, string>; samples: ParsedSample[] } {
  const types = new Map<string, string>();
  const samples: ParsedSample[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line === '' || line.startsWith('# HELP ')) continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1], type[2]);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`line ${i + 1} is not a sample: ${JSON.stringify(line)}`);
    const [, name, labelText, valueText] = m;
    if (!types.has(name)) throw new Error(`line ${i + 1}: sample of ${name} before its # TYPE line`);
    const labels: Record<string, string> = {};
    if (labelText) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
      let pos = 0;
      while (pos < labelText.length) {
        re.lastIndex = pos;
        const lm = re.exec(labelText);
        if (!lm) throw new Error(`line ${i + 1}: malformed labels ${JSON.stringify(labelText)}`);
        labels[lm[1]] = lm[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
        pos = re.lastIndex;
      }
    }
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') throw new Error(`line ${i + 1}: value ${JSON.stringify(valueText)} is not a number`);
    samples.push({ name, labels, value });
  }
  return { types, samples };
}
