import { onnx } from 'onnx-proto';

/** The bytes of an ONNX model holding `graph`: IR version 8, default-domain opset 13, produced by sqlsweep-retrieval. */
export function encodeOnnxModel(graph: onnx.IGraphProto, producerVersion?: string): Uint8Array {
  const model: onnx.IModelProto = {
    irVersion: 8,
    producerName: 'sqlsweep-retrieval',
    ...(producerVersion !== undefined ? { producerVersion } : {}),
    opsetImport: [{ domain: '', version: 13 }],
    graph,
  };
  return onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish();
}
