/**
 * PostgreSQL arrays in the binary wire format, for statements that bind whole columns as arrays
 * (`unnest($1::int4[], $2::text[], $3::int8[], $4::float8[])`).
 *
 * Why: node-postgres encodes a JS array parameter element by element as a text literal
 * (prepareValue, escapeElement for every string, a decimal string for every number) and
 * PostgreSQL parses that text back (array_in, float8in). On the ingest bench that cost ~8 % of the
 * server's busy CPU for the tier, series and non-finite columns of each batch, most of it turning
 * doubles and bigints into decimal strings. node-postgres sends a `Buffer` parameter as binary
 * (format code 1) unchanged, so a column written here costs a few bytes per element and
 * PostgreSQL reads it with array_recv: no escaping, no number formatting or parsing.
 *
 * The element type written must be the one the statement casts the parameter to (`$n::int8[]`
 * with "int8"): PostgreSQL refuses any other ("binary data has array element type …"). Format (array_send): int32
 * dimensions (1, or 0 when empty), int32 has-null flag, int32 element type OID, int32 length and
 * int32 lower bound 1, then per element an int32 byte length (-1 for NULL) and its bytes: big-endian
 * two's complement integers, IEEE 754 big-endian doubles, UTF-8 text.
 */

/** Element types this module writes. */
export type ArrayElementType = "int2" | "int4" | "int8" | "float8" | "text";

/** The JS values each element type takes: integers as numbers (safe integers) or bigints, doubles as numbers (NaN/±Infinity included), text as strings. */
export type ArrayElementValue<T extends ArrayElementType> = T extends "text"
  ? string
  : T extends "float8"
    ? number
    : number | bigint;

const OID: Record<ArrayElementType, number> = {
  int2: 21,
  int4: 23,
  int8: 20,
  float8: 701,
  text: 25,
};
const WIDTH: Record<ArrayElementType, number> = { int2: 2, int4: 4, int8: 8, float8: 8, text: 0 };
const HEADER_BYTES = 20;
const TWO_32 = 2 ** 32;

/**
 * Accumulates one one-dimensional array column element by element; {@link BinaryArray.toBuffer}
 * returns the parameter value. Integers out of their type's range throw RangeError (callers pass
 * validated values); -0 is written as 0, as its decimal text "0" always was.
 */
export class BinaryArray<T extends ArrayElementType> {
  private buf: Buffer;
  private view: DataView;
  private at = HEADER_BYTES;
  private count = 0;
  private hasNull = false;
  private readonly width: number;

  /** `capacity`: elements to reserve room for (the buffer grows as needed; text elements count 16 bytes). */
  constructor(
    readonly type: T,
    capacity = 32,
  ) {
    this.width = WIDTH[type];
    this.buf = Buffer.allocUnsafe(HEADER_BYTES + capacity * (4 + (this.width || 16)));
    this.view = viewOf(this.buf);
  }

  /** Elements appended so far. */
  get length(): number {
    return this.count;
  }

  /** Appends one element (null: SQL NULL). */
  push(value: ArrayElementValue<T> | null): this {
    this.count++;
    if (value === null) {
      this.ensure(4);
      this.view.setInt32(this.at, -1);
      this.at += 4;
      this.hasNull = true;
      return this;
    }
    if (this.type === "text") {
      const s = value as string;
      // UTF-8 takes at most 3 bytes per UTF-16 code unit.
      this.ensure(4 + s.length * 3);
      const n = this.buf.write(s, this.at + 4, "utf8");
      this.view.setInt32(this.at, n);
      this.at += 4 + n;
      return this;
    }
    // DataView's setters are big-endian by default and far cheaper than Buffer's checked writers.
    this.ensure(4 + this.width);
    const v = this.view;
    const at = this.at;
    v.setInt32(at, this.width);
    switch (this.type) {
      case "float8":
        v.setFloat64(at + 4, (value as number) + 0); // + 0 turns -0 into 0
        break;
      case "int8":
        if (typeof value === "bigint") {
          if (value < INT64_MIN || value > INT64_MAX)
            throw new RangeError(`out of range for int8: ${value}`);
          v.setBigInt64(at + 4, value);
        } else setInt64(v, at + 4, value as number);
        break;
      case "int4":
        v.setInt32(at + 4, checkedInt(Number(value), 2 ** 31, "int4"));
        break;
      case "int2":
        v.setInt16(at + 4, checkedInt(Number(value), 2 ** 15, "int2"));
        break;
    }
    this.at = at + 4 + this.width;
    return this;
  }

  /** The array as a binary parameter value (a view of this builder's buffer: do not push after). */
  toBuffer(): Buffer {
    const v = this.view;
    v.setInt32(0, this.count === 0 ? 0 : 1);
    v.setInt32(4, this.hasNull ? 1 : 0);
    v.setInt32(8, OID[this.type]);
    if (this.count === 0) return this.buf.subarray(0, 12);
    v.setInt32(12, this.count);
    v.setInt32(16, 1);
    return this.buf.subarray(0, this.at);
  }

  private ensure(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
    this.view = viewOf(grown);
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function viewOf(b: Buffer): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** `v` when it is an integer in [-half, half); @throws RangeError otherwise. */
function checkedInt(v: number, half: number, type: string): number {
  if (!Number.isInteger(v) || v < -half || v >= half)
    throw new RangeError(`out of range for ${type}: ${v}`);
  return v;
}

/** Writes a safe integer as a big-endian int64 without a BigInt. @throws RangeError when `v` is not a safe integer. */
function setInt64(view: DataView, at: number, v: number): void {
  if (!Number.isSafeInteger(v)) throw new RangeError(`not a safe integer for int8: ${v}`);
  const hi = Math.floor(v / TWO_32);
  view.setInt32(at, hi);
  view.setUint32(at + 4, v - hi * TWO_32);
}

/** A whole column as a binary array parameter of element type `type` (null elements: SQL NULL). */
export function binaryArray<T extends ArrayElementType>(
  type: T,
  values: Iterable<ArrayElementValue<T> | null>,
): Buffer {
  const out = new BinaryArray(type);
  for (const v of values) out.push(v);
  return out.toBuffer();
}
