import { onnx } from 'onnx-proto';
import { encodeOnnxModel } from '../onnx-model';

const FLOAT = onnx.TensorProto.DataType.FLOAT;

/** `rows [n, inputDim] -> MatMul(weights [inputDim, outputDim])`: a separately shipped projection, run on onnxruntime. */
export function buildProjectionModel(weights: Float32Array, inputDim: number, outputDim: number): Uint8Array {
  return encodeOnnxModel({
    name: 'sqlsweep_projection',
    node: [{ name: 'project', opType: 'MatMul', input: ['rows', 'weights'], output: ['projected'] }],
    initializer: [{ name: 'weights', dims: [inputDim, outputDim], dataType: FLOAT, rawData: new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength) }],
    input: [{ name: 'rows', type: { tensorType: { elemType: FLOAT, shape: { dim: [{ dimParam: 'n' }, { dimValue: inputDim }] } } } }],
    output: [{ name: 'projected', type: { tensorType: { elemType: FLOAT, shape: { dim: [{ dimParam: 'n' }, { dimValue: outputDim }] } } } }],
  });
}
