import { onnx } from 'onnx-proto';

const FLOAT = onnx.TensorProto.DataType.FLOAT;

/** `rows [n, inputDim] -> MatMul(weights [inputDim, outputDim])`: a separately shipped projection, run on onnxruntime. */
export function buildProjectionModel(weights: Float32Array, inputDim: number, outputDim: number): Uint8Array {
  const model: onnx.IModelProto = {
    irVersion: 8,
    producerName: 'sqlsweep-retrieval',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'sqlsweep_projection',
      node: [{ name: 'project', opType: 'MatMul', input: ['rows', 'weights'], output: ['projected'] }],
      initializer: [{ name: 'weights', dims: [inputDim, outputDim], dataType: FLOAT, rawData: new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength) }],
      input: [{ name: 'rows', type: { tensorType: { elemType: FLOAT, shape: { dim: [{ dimParam: 'n' }, { dimValue: inputDim }] } } } }],
      output: [{ name: 'projected', type: { tensorType: { elemType: FLOAT, shape: { dim: [{ dimParam: 'n' }, { dimValue: outputDim }] } } } }],
    },
  };
  return onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish();
}
