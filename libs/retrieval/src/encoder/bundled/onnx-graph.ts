import { onnx } from 'onnx-proto';
import { encodeOnnxModel } from '../../onnx-model';

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;

export interface LateInteractionGraphWeights {
  vocabularySize: number;
  hiddenDim: number;
  outputDim: number;
  /** [vocabularySize, hiddenDim] */
  embeddings: Float32Array;
  /** depthwise context kernel applied to every channel: weights of the previous, current and next token */
  contextKernel: readonly [number, number, number];
  /** [hiddenDim, outputDim] */
  projection: Float32Array;
}

export const BUNDLED_OUTPUT_NAME = 'last_hidden_state';

function floatTensor(name: string, dims: number[], values: Float32Array): onnx.ITensorProto {
  return { name, dims, dataType: FLOAT, rawData: new Uint8Array(values.buffer, values.byteOffset, values.byteLength) };
}

function int64Tensor(name: string, values: number[]): onnx.ITensorProto {
  return { name, dims: [values.length], dataType: INT64, int64Data: values };
}

function ints(name: string, values: number[]): onnx.IAttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.INTS, ints: values };
}

function int(name: string, value: number): onnx.IAttributeProto {
  return { name, type: onnx.AttributeProto.AttributeType.INT, i: value };
}


function valueInfo(name: string, elemType: number, dims: (string | number)[]): onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  };
}

/**
 * A ColBERT-shaped ONNX graph with the same interface as a real export: inputs `input_ids` and `attention_mask`
 * (int64 [batch, sequence]), output `last_hidden_state` (float [batch, sequence, outputDim]), already projected,
 * L2-normalised per token and zeroed where the attention mask is 0.
 *   Gather(embeddings) -> depthwise Conv over the sequence (token context) -> MatMul(projection)
 *   -> x / max(||x||, eps) -> * mask
 */
export function buildLateInteractionModel(weights: LateInteractionGraphWeights): Uint8Array {
  const { vocabularySize, hiddenDim, outputDim } = weights;
  const kernel = new Float32Array(hiddenDim * 3);
  for (let c = 0; c < hiddenDim; c++) kernel.set(weights.contextKernel, c * 3);
  const nodes: onnx.INodeProto[] = [
    { opType: 'Gather', input: ['embeddings', 'input_ids'], output: ['token_vectors'], attribute: [int('axis', 0)] },
    { opType: 'Transpose', input: ['token_vectors'], output: ['channels_first'], attribute: [ints('perm', [0, 2, 1])] },
    {
      opType: 'Conv',
      input: ['channels_first', 'context_kernel'],
      output: ['contextual_channels'],
      attribute: [int('group', hiddenDim), ints('kernel_shape', [3]), ints('pads', [1, 1])],
    },
    { opType: 'Transpose', input: ['contextual_channels'], output: ['contextual'], attribute: [ints('perm', [0, 2, 1])] },
    { opType: 'MatMul', input: ['contextual', 'projection'], output: ['projected'] },
    { opType: 'ReduceL2', input: ['projected'], output: ['norms'], attribute: [ints('axes', [-1]), int('keepdims', 1)] },
    { opType: 'Max', input: ['norms', 'epsilon'], output: ['safe_norms'] },
    { opType: 'Div', input: ['projected', 'safe_norms'], output: ['normalised'] },
    { opType: 'Cast', input: ['attention_mask'], output: ['mask_float'], attribute: [int('to', FLOAT)] },
    { opType: 'Unsqueeze', input: ['mask_float', 'last_axis'], output: ['mask_column'] },
    { opType: 'Mul', input: ['normalised', 'mask_column'], output: [BUNDLED_OUTPUT_NAME] },
  ].map((node, i) => ({ ...node, name: `${node.opType.toLowerCase()}_${i}` }));

  return encodeOnnxModel({
    name: 'sqlsweep_hashed_ngram_colbert',
    node: nodes,
    initializer: [
      floatTensor('embeddings', [vocabularySize, hiddenDim], weights.embeddings),
      floatTensor('context_kernel', [hiddenDim, 1, 3], kernel),
      floatTensor('projection', [hiddenDim, outputDim], weights.projection),
      floatTensor('epsilon', [], new Float32Array([1e-6])),
      int64Tensor('last_axis', [2]),
    ],
    input: [valueInfo('input_ids', INT64, ['batch', 'sequence']), valueInfo('attention_mask', INT64, ['batch', 'sequence'])],
    output: [valueInfo(BUNDLED_OUTPUT_NAME, FLOAT, ['batch', 'sequence', outputDim])],
  }, '1');
}
