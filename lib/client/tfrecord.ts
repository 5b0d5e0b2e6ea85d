import { crc32c } from "@aws-crypto/crc32c";

/**
 * TFRecord framing, as TensorFlow's record writer (and tensorboardX, torch.utils.tensorboard)
 * writes event files: per record a little-endian uint64 payload length, the masked CRC-32C of
 * those 8 bytes, the payload, the masked CRC-32C of the payload. A record cut short at the end of
 * the buffer (the writer is mid-append) is not read: the caller reads again from `nextOffset`.
 */

/** TensorFlow's CRC mask: rotate right by 15 bits and add a constant (record_writer.h). */
export function maskedCrc32c(data: Uint8Array): number {
  const crc = crc32c(data);
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** One complete record: its payload and its byte range in the file. */
export interface TfRecord {
  payload: Buffer;
  /** Offset of the record's first byte (its length field). */
  start: number;
  /** Offset just past the record. */
  end: number;
}

/** What {@link readTfRecords} found. */
export interface TfRecordRead {
  records: TfRecord[];
  /** Where the next read starts: past the last complete record (or the corrupt one). */
  nextOffset: number;
  /** A record whose CRC did not match (skipped: payload CRC; stopped: length CRC, since the framing is lost). */
  problems: { offset: number; message: string; fatal: boolean }[];
}

/** Largest payload accepted (a corrupt length must not make us wait for gigabytes). */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;

/**
 * The complete records in `buf`, which holds the file's bytes from file offset `base`.
 * Never throws: a bad length CRC stops reading (fatal problem, `nextOffset` at that record);
 * a bad payload CRC skips that record (problem), as TensorBoard's own reader does.
 */
export function readTfRecords(buf: Buffer, base = 0): TfRecordRead {
  const out: TfRecordRead = { records: [], nextOffset: base, problems: [] };
  let at = 0;
  while (buf.length - at >= 12) {
    const lengthBytes = buf.subarray(at, at + 8);
    if (buf.readUInt32LE(at + 8) !== maskedCrc32c(lengthBytes)) {
      out.problems.push({
        offset: base + at,
        message: "record length CRC mismatch: the file is corrupt from here on",
        fatal: true,
      });
      break;
    }
    const length = Number(buf.readBigUInt64LE(at));
    if (length > MAX_RECORD_BYTES) {
      out.problems.push({
        offset: base + at,
        message: `record of ${length} bytes is over the ${MAX_RECORD_BYTES}-byte limit`,
        fatal: true,
      });
      break;
    }
    if (buf.length - at < 12 + length + 4) break; // cut short: wait for the rest
    const payload = buf.subarray(at + 12, at + 12 + length);
    const end = at + 12 + length + 4;
    if (buf.readUInt32LE(at + 12 + length) !== maskedCrc32c(payload)) {
      out.problems.push({
        offset: base + at,
        message: "record payload CRC mismatch: record skipped",
        fatal: false,
      });
    } else {
      out.records.push({ payload: Buffer.from(payload), start: base + at, end: base + end });
    }
    at = end;
  }
  out.nextOffset = base + at;
  return out;
}
