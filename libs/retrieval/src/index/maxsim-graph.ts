import { onnx } from 'onnx-proto';
import { encodeOnnxModel } from '../onnx-model';

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;

const dims = (values: (string | number)[]) => ({ dim: values.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) });

/**
 * Batched exact MaxSim as an ONNX graph, so scoring runs on onnxruntime's vectorised MatMul:
 *   documents [n, L, d] (padded), padBias [n, L, 1] (0 for real rows, -1e9 for padding), query [q, d]
 *   -> MatMul(documents, transpose(query)) + padBias -> ReduceMax over L -> ReduceSum over q -> scores [n]
 */
export function buildMaxSimModel(dim: number): Uint8Array {
  return encodeOnnxModel({
    name: 'sqlsweep_maxsim',
    node: [
      { name: 'qt', opType: 'Transpose', input: ['query'], output: ['query_t'], attribute: [{ name: 'perm', type: onnx.AttributeProto.AttributeType.INTS, ints: [1, 0] }] },
      { name: 'dots', opType: 'MatMul', input: ['documents', 'query_t'], output: ['dots'] },
      { name: 'masked', opType: 'Add', input: ['dots', 'pad_bias'], output: ['masked'] },
      {
        name: 'best',
        opType: 'ReduceMax',
        input: ['masked'],
        output: ['best'],
        attribute: [
          { name: 'axes', type: onnx.AttributeProto.AttributeType.INTS, ints: [1] },
          { name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 },
        ],
      },
      { name: 'sum', opType: 'ReduceSum', input: ['best', 'sum_axes'], output: ['scores'], attribute: [{ name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 }] },
    ],
    initializer: [{ name: 'sum_axes', dims: [1], dataType: INT64, int64Data: [1] }],
    input: [
      { name: 'documents', type: { tensorType: { elemType: FLOAT, shape: dims(['n', 'rows', dim]) } } },
      { name: 'pad_bias', type: { tensorType: { elemType: FLOAT, shape: dims(['n', 'rows', 1]) } } },
      { name: 'query', type: { tensorType: { elemType: FLOAT, shape: dims(['q', dim]) } } },
    ],
    output: [{ name: 'scores', type: { tensorType: { elemType: FLOAT, shape: dims(['n']) } } }],
  });
}
