import protobuf from "protobufjs";

/**
 * Decoding TensorBoard `Event` protocol buffers (tensorflow/core/util/event.proto, summary.proto,
 * tensor.proto, as of TensorFlow 2.x / tensorboard 2.x; the same messages tensorboardX 2.6 and
 * torch.utils.tensorboard write) with protobufjs, keeping only what scalar charts need. Fields
 * this schema leaves out (images, audio, graphs, histograms' buckets) are skipped by the decoder.
 */

const PROTO = `
syntax = "proto3";
package tensorboard;
message Event {
  double wall_time = 1;
  int64 step = 2;
  string file_version = 3;
  Summary summary = 5;
}
message Summary {
  repeated Value value = 1;
  message Value {
    string node_name = 7;
    string tag = 1;
    SummaryMetadata metadata = 9;
    oneof value {
      float simple_value = 2;
      bytes obsolete_old_style_histogram = 3;
      HistogramProto histo = 5;
      TensorProto tensor = 8;
    }
  }
}
message HistogramProto { double min = 1; }
message SummaryMetadata {
  message PluginData { string plugin_name = 1; bytes content = 2; }
  PluginData plugin_data = 1;
  string display_name = 2;
  string summary_description = 3;
  int32 data_class = 4;
}
message TensorShapeProto {
  message Dim { int64 size = 1; string name = 2; }
  repeated Dim dim = 2;
  bool unknown_rank = 3;
}
message TensorProto {
  int32 dtype = 1;
  TensorShapeProto tensor_shape = 2;
  int32 version_number = 3;
  bytes tensor_content = 4;
  repeated int32 half_val = 13 [packed = true];
  repeated float float_val = 5 [packed = true];
  repeated double double_val = 6 [packed = true];
  repeated int32 int_val = 7 [packed = true];
  repeated int64 int64_val = 10 [packed = true];
  repeated bool bool_val = 11 [packed = true];
  repeated uint32 uint32_val = 16 [packed = true];
  repeated uint64 uint64_val = 17 [packed = true];
}
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;
const EventType = root.lookupType("tensorboard.Event");

interface TensorObject {
  dtype?: number;
  tensor_shape?: { dim?: { size?: string }[]; unknown_rank?: boolean };
  tensor_content?: Buffer;
  half_val?: number[];
  float_val?: number[];
  double_val?: number[];
  int_val?: number[];
  int64_val?: string[];
  bool_val?: boolean[];
  uint32_val?: number[];
  uint64_val?: string[];
}

interface ValueObject {
  tag?: string;
  node_name?: string;
  metadata?: { plugin_data?: { plugin_name?: string } };
  simple_value?: number;
  tensor?: TensorObject;
}

/** One decoded event, reduced to what scalar charts need. */
export interface TfEvent {
  /** Seconds since the epoch (fractional). */
  wallTimeS: number;
  /** The global step: a number when it is a safe integer, else its decimal text (64-bit). */
  step: number | string;
  /** Set on the first event of a file (`brain.Event:2`). */
  fileVersion?: string;
  values: TfSummaryValue[];
}

/** One summary value of an event. */
export interface TfSummaryValue {
  tag: string;
  /** Plugin named in this value's metadata (TensorFlow writes it on a tag's first value only). */
  pluginName?: string;
  /** `simple_value` (tensorboardX, torch add_scalar, TF1). */
  simpleValue?: number;
  /** The single number of a rank-0 (or one-element) numeric tensor; undefined for other tensors. */
  tensorScalar?: number;
  /** Whether the value holds a tensor (scalar or not). */
  hasTensor: boolean;
}

const DT = {
  FLOAT: 1,
  DOUBLE: 2,
  INT32: 3,
  UINT8: 4,
  INT16: 5,
  INT8: 6,
  INT64: 9,
  BOOL: 10,
  UINT16: 17,
  HALF: 19,
  UINT32: 22,
  UINT64: 23,
  BFLOAT16: 14,
} as const;

function halfToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

/** The number of a rank-0 / one-element numeric tensor, or undefined. */
export function tensorScalar(t: TensorObject): number | undefined {
  const dims = t.tensor_shape?.dim ?? [];
  if (t.tensor_shape?.unknown_rank || dims.some((d) => Number(d.size ?? 0) !== 1)) return undefined;
  const content = t.tensor_content && t.tensor_content.length ? t.tensor_content : null;
  const first = <T>(list: T[] | undefined): T | undefined =>
    list && list.length === 1 ? list[0] : undefined;
  switch (t.dtype) {
    case DT.FLOAT:
      return content?.length === 4 ? content.readFloatLE(0) : first(t.float_val);
    case DT.DOUBLE:
      return content?.length === 8 ? content.readDoubleLE(0) : first(t.double_val);
    case DT.INT32:
    case DT.INT16:
    case DT.INT8:
    case DT.UINT8:
    case DT.UINT16: {
      if (content)
        return t.dtype === DT.INT32 && content.length === 4 ? content.readInt32LE(0) : undefined;
      return first(t.int_val);
    }
    case DT.INT64: {
      if (content) return content.length === 8 ? Number(content.readBigInt64LE(0)) : undefined;
      const v = first(t.int64_val);
      return v === undefined ? undefined : Number(v);
    }
    case DT.UINT32:
      return content?.length === 4 ? content.readUInt32LE(0) : first(t.uint32_val);
    case DT.UINT64: {
      if (content) return content.length === 8 ? Number(content.readBigUInt64LE(0)) : undefined;
      const v = first(t.uint64_val);
      return v === undefined ? undefined : Number(v);
    }
    case DT.HALF: {
      if (content) return content.length === 2 ? halfToNumber(content.readUInt16LE(0)) : undefined;
      const v = first(t.half_val);
      return v === undefined ? undefined : halfToNumber(v);
    }
    case DT.BFLOAT16: {
      const bits = content?.length === 2 ? content.readUInt16LE(0) : first(t.half_val);
      if (bits === undefined) return undefined;
      const b = Buffer.alloc(4);
      b.writeUInt32LE(((bits & 0xffff) << 16) >>> 0);
      return b.readFloatLE(0);
    }
    case DT.BOOL: {
      const v = content?.length === 1 ? content[0] !== 0 : first(t.bool_val);
      return v === undefined ? undefined : v ? 1 : 0;
    }
    default:
      return undefined;
  }
}

/**
 * Decodes one event record's payload.
 * @throws Error when the payload is not a valid Event protocol buffer.
 */
export function decodeTfEvent(payload: Uint8Array): TfEvent {
  const msg = EventType.decode(payload);
  const obj = EventType.toObject(msg, { longs: String, bytes: Buffer, defaults: false }) as {
    wall_time?: number;
    step?: string;
    file_version?: string;
    summary?: { value?: ValueObject[] };
  };
  const stepText = obj.step ?? "0";
  const stepNum = Number(stepText);
  const values: TfSummaryValue[] = (obj.summary?.value ?? []).map((v) => {
    const out: TfSummaryValue = {
      tag: v.tag || v.node_name || "",
      hasTensor: v.tensor !== undefined,
    };
    const plugin = v.metadata?.plugin_data?.plugin_name;
    if (plugin) out.pluginName = plugin;
    if (v.simple_value !== undefined) out.simpleValue = v.simple_value;
    if (v.tensor) {
      const s = tensorScalar(v.tensor);
      if (s !== undefined) out.tensorScalar = s;
    }
    return out;
  });
  return {
    wallTimeS: obj.wall_time ?? 0,
    step: Number.isSafeInteger(stepNum) ? stepNum : stepText,
    ...(obj.file_version ? { fileVersion: obj.file_version } : {}),
    values,
  };
}
