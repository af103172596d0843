/**
 * A value given as its JSON text. A handler that already holds its result as JSON (a store that keeps values as
 * JSON text, a cache of encoded answers) returns `new JsonText(text)`, and the SDK writes that text into the answer
 * as it is, instead of parsing it and running `JSON.stringify` over the same value again. A caller may give a
 * call's payload so too (`trigger({ payload: new JsonText(text) })`).
 *
 * The text must be one complete JSON value that the program made itself (with `JSON.stringify`, or read back from
 * where it stored such text): it is not checked here, and a bad text makes the whole frame undecodable (the engine
 * then fails the call with `invalid_result`, or, for a payload, refuses the call's frame, which fails at its
 * deadline).
 * Wherever the value is handed on some other way (`JSON.stringify`, an engine module's in-process connection, which
 * passes objects), it stands for the parsed value: `toJSON()` and `value()` give it.
 */
export class JsonText {
  constructor(readonly text: string) {}

  /** The value the text encodes (parsed at each call). */
  value(): unknown {
    return JSON.parse(this.text) as unknown;
  }

  toJSON(): unknown {
    return this.value();
  }
}
