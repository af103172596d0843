/**
 * Hex digits read by table: `HEX_VALUE` holds the value of each UTF-16 unit that is a hex digit (either case) and
 * `NOT_HEX` (16) at every other unit, so a lookup needs no range check. Shared by `isUuid` and `uuidLead`.
 */
export const NOT_HEX = 16;
export const HEX_VALUE = new Uint8Array(65536).fill(NOT_HEX);
for (let d = 0; d < 16; d++) {
  HEX_VALUE['0123456789abcdef'.charCodeAt(d)] = d;
  HEX_VALUE['0123456789ABCDEF'.charCodeAt(d)] = d;
}
