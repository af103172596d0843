import { describe, expect, it } from 'vitest';
import { Telemetry, SPAN_ATTRIBUTE_CHARS } from '../src/telemetry/telemetry.js';

describe('span attribute limit', () => {
  it('keeps at most SPAN_ATTRIBUTE_CHARS of a string attribute, so one span cannot carry a whole request body', async () => {
    const frames: string[] = [];
    const telemetry = new Telemetry({
      serviceName: 'limits',
      spanDelayMs: 1,
      sink: (prefix, body) => {
        if (prefix === 'OTLP') frames.push(Buffer.from(body).toString());
        return true;
      },
    });
    const span = telemetry.startSpan('handler', { attributes: { 'request.body': 'b'.repeat(1024 * 1024) } });
    span.setAttribute('response.body', 'r'.repeat(100_000));
    span.setAttribute('short', 'kept whole');
    span.end();
    await telemetry.flush();
    await telemetry.shutdown();
    const attributes = new Map<string, string>();
    for (const text of frames) {
      const request = JSON.parse(text) as {
        resourceSpans: {
          scopeSpans: { spans: { attributes: { key: string; value: { stringValue?: string } }[] }[] }[];
        }[];
      };
      for (const rs of request.resourceSpans)
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans) for (const a of s.attributes) attributes.set(a.key, a.value.stringValue ?? '');
    }
    expect(attributes.get('request.body')).toHaveLength(SPAN_ATTRIBUTE_CHARS);
    expect(attributes.get('response.body')).toHaveLength(SPAN_ATTRIBUTE_CHARS);
    expect(attributes.get('short')).toBe('kept whole');
  });
});
