import { describe, expect, it } from 'vitest';
import { SPAN_ATTRIBUTE_CHARS } from '../src/constants.js';
import { LOG_MESSAGE_CHARS, Telemetry } from '../src/telemetry/telemetry.js';

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

  it('keeps at most LOG_MESSAGE_CHARS of a log message and SPAN_ATTRIBUTE_CHARS of its attributes', async () => {
    const frames: string[] = [];
    const telemetry = new Telemetry({
      serviceName: 'limits',
      logDelayMs: 1,
      sink: (prefix, body) => {
        if (prefix === 'LOGS') frames.push(Buffer.from(body).toString());
        return true;
      },
    });
    telemetry.log('info', 'm'.repeat(LOG_MESSAGE_CHARS + 10), { data: 'd'.repeat(100_000) });
    await telemetry.flush();
    await telemetry.shutdown();
    const request = JSON.parse(frames.join('')) as {
      resourceLogs: {
        scopeLogs: {
          logRecords: {
            body: { stringValue: string };
            attributes: { key: string; value: { stringValue: string } }[];
          }[];
        }[];
      }[];
    };
    const [record] = request.resourceLogs[0]!.scopeLogs[0]!.logRecords;
    expect(record!.body.stringValue).toBe(`${'m'.repeat(LOG_MESSAGE_CHARS)}… [10 more characters not kept]`);
    expect(record!.attributes.find((a) => a.key === 'data')?.value.stringValue).toHaveLength(SPAN_ATTRIBUTE_CHARS);
  });
});
