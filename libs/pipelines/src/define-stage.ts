import type { PipelineKnobs, PipelineName, StageRole } from '@sqlsweep/contracts';
import type { LlmResponse } from '@sqlsweep/llm';
import type { ComputeStage, EstimateContext, LlmCall, LlmStage, StageContext, StageImplementation, StageRun } from './stage-context';
import { renderTemplate, type PromptTemplate } from './template';

/** Parameters every stage may read besides its pipeline's knobs (see `variantScalars`). */
export interface CommonParams {
  model: string;
  sampleIndex: number;
  /** The sweep's cache namespace: LLM stages read it, so a new namespace means fresh calls. */
  cacheNamespace: string;
}

/** What a stage of pipeline P may read: one value of each of P's knobs, and the common parameters. */
export type ParamsOf<P extends PipelineName> = PipelineKnobs<P> & CommonParams;

declare const carries: unique symbol;

/** How a stage receives one named input. `T` is the output type of the stage(s) it comes from. */
export interface Input<T, K extends InputKind> {
  readonly kind: K;
  /** A fixed source stage; without one the graph wires the input (`GraphBuilder.add`). */
  readonly source?: AnyStage;
  readonly [carries]?: T;
}
type InputKind = 'one' | 'optional' | 'list' | 'train-items';
export type InputSpecs = Readonly<Record<string, Input<unknown, InputKind>>>;

/** A stage: its name, role, version, the parameters and inputs it reads, and its code. Graphs and the registry both use it. */
export interface StageDefinition<Params = unknown, Output = unknown, Inputs extends InputSpecs = InputSpecs> {
  readonly name: string;
  readonly role: StageRole;
  /** Bump when the stage's code changes meaning: it is part of the key. */
  readonly version: number;
  /** The parameters its key depends on (and the only ones it is given). */
  readonly reads: readonly string[];
  readonly inputs: Inputs;
  /** 'train-items': one instance per training item of the dataset version (see `StageNode.scope`). */
  readonly scope: 'item' | 'train-items';
  readonly template?: PromptTemplate;
  /** The stage whose output is the item's verdict (`evaluate`). */
  readonly final: boolean;
  readonly implementation: StageImplementation;
  /** Types only. */
  readonly [carries]?: { params: Params; output: Output };
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any stage, whatever it reads and outputs
export type AnyStage = StageDefinition<any, any, any>;

export type OutputOf<S> = S extends StageDefinition<unknown, infer O, InputSpecs> ? O : never;
export type ParamsOfStage<S> = S extends StageDefinition<infer P, unknown, InputSpecs> ? P : never;
/** A stage whose output can stand where a `T` is read. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the source may read anything
export type Producing<T> = StageDefinition<any, T, any>;

/** The input of `source`'s output, always wired to `source` (a stage earlier in the same scope). */
export function from<S extends AnyStage>(source: S): Input<OutputOf<S>, 'one'> & { readonly source: S } {
  return { kind: 'one', source };
}
/** The outputs of the train-items stage `source` for every training item, by training item id. */
export function trainItemsOf<S extends AnyStage>(source: S): Input<OutputOf<S>, 'train-items'> & { readonly source: S } {
  if (source.scope !== 'train-items') throw new Error(`${source.name} is not a train-items stage`);
  return { kind: 'train-items', source };
}
/** An input the graph wires to any stage whose output is a `T`. */
export function slot<T>(): Input<T, 'one'> {
  return { kind: 'one' };
}
/** An input the graph may leave out (the stage then sees `undefined`). */
export function optionalSlot<T>(): Input<T, 'optional'> {
  return { kind: 'optional' };
}
/** Numbered inputs `<name>1` … `<name>n`, one per stage the graph wires, read as an array in that order. */
export function listSlot<T>(): Input<T, 'list'> {
  return { kind: 'list' };
}

type InputValue<S> = S extends Input<infer T, infer K>
  ? K extends 'one' ? T : K extends 'optional' ? T | undefined : K extends 'list' ? readonly T[] : ReadonlyMap<string, T>
  : never;
/** The inputs a stage's code sees, typed by the stages they come from. */
export type InputsOf<I extends InputSpecs> = { readonly [K in keyof I]: InputValue<I[K]> };

/** What the graph must say of a stage's inputs that have no fixed source. */
export type Wiring<I extends InputSpecs> = {
  readonly [K in keyof I as I[K] extends { readonly source: AnyStage } ? never : K]:
    I[K] extends Input<infer T, infer Kind>
      ? Kind extends 'one' ? Producing<T> : Kind extends 'optional' ? Producing<T> | undefined : readonly Producing<T>[]
      : never;
};

/** The context of a stage's code: the parameters it reads and its inputs, typed. */
export interface TypedContext<Params, I extends InputSpecs> extends Omit<StageContext, 'params' | 'inputs'> {
  readonly params: Params;
  readonly inputs: InputsOf<I>;
}
/** Before the run (`estimate`, `skipsFor`): the stage's parameters (and those of the stages upstream), no inputs. */
export interface TypedEstimateContext<Params> extends Omit<EstimateContext, 'params'> {
  readonly params: Params;
}

// ---- defining stages ----

interface StageSpec<Params, R extends keyof Params, I extends InputSpecs> {
  /** Globally unique, e.g. `rb-sql.tables`; stored with every result. */
  name: string;
  version: number;
  reads?: readonly R[];
  inputs?: I;
  scope?: 'item' | 'train-items';
}

interface ComputeSpec<Params, R extends keyof Params, I extends InputSpecs, O> extends StageSpec<Params, R, I> {
  role: Exclude<StageRole, 'llm'>;
  final?: boolean;
  run(ctx: TypedContext<Pick<Params, R>, I>): Promise<StageRun<O>>;
}

type NumericKnob<Params> = { [K in keyof Params]: Params[K] extends number ? K : never }[keyof Params];
interface LlmSpec<Params extends CommonParams, R extends keyof Params, I extends InputSpecs, O, T extends NumericKnob<Params>, M extends NumericKnob<Params>, E extends keyof Params = never>
  extends StageSpec<Params, R, I> {
  template: PromptTemplate;
  /** The knob that sets the temperature (default `temperature`). */
  temperatureKnob?: T;
  /** The knob that sets the length limit (default `maxTokens`), or a fixed limit that is part of the stage's code. */
  maxTokens?: M | { fixed: number };
  /** What the planner assumes an answer costs in output tokens. */
  expectedOutputTokens: number;
  /**
   * The template's slot values. `inputs` is undefined when the planner estimates the prompt before the run, so an
   * estimate is the prompt without what the inputs add: say so where that is not an upper bound.
   */
  render(ctx: TypedEstimateContext<Pick<Params, R | T | M | keyof CommonParams> & Partial<Pick<Params, E>>>, inputs: InputsOf<I> | undefined): Record<string, string>;
  /**
   * Parameters of stages upstream that `render` reads to estimate (`inputs` undefined), or `skipsFor` reads: the planner gives them then
   * (`EstimateContext.params`), a run does not. Not part of this stage's key (the upstream stage's key holds them).
   */
  estimateReads?: readonly E[];
  /** The planner cannot estimate the prompt (the inputs make most of it). */
  notEstimable?: true;
  /** Pass through without a call (see `LlmStage.skip`). */
  skip?(ctx: TypedContext<Pick<Params, R | T | M | keyof CommonParams>, I>): StageRun<O> | undefined;
  skipsFor?(ctx: TypedEstimateContext<Pick<Params, R | T | M | keyof CommonParams> & Partial<Pick<Params, E>>>): boolean;
  parse(response: LlmResponse, ctx: TypedContext<Pick<Params, R | T | M | keyof CommonParams>, I>): O;
}

/**
 * Stage definitions for stages that read the parameters `Params` (a pipeline's, `ParamsOf<P>`, plus any derived
 * parameter such as a file knob's hash). A `reads` entry that is not one of them is a compile error.
 */
export function stagesReading<Params extends CommonParams>() {
  return {
    compute<const R extends keyof Params & string = never, const I extends InputSpecs = Record<never, never>, O = unknown>(
      spec: ComputeSpec<Params, R, I, O>,
    ): StageDefinition<Pick<Params, R>, O, I> & { readonly implementation: ComputeStage } {
      const inputs = (spec.inputs ?? {}) as I;
      return {
        name: spec.name, role: spec.role, version: spec.version, reads: spec.reads ?? [], inputs, scope: spec.scope ?? 'item',
        final: spec.final ?? false,
        implementation: { kind: 'compute', run: (ctx) => spec.run(typedContext(ctx, inputs)) },
      };
    },

    /**
     * An LLM stage. Its key reads model, temperature, length limit, sample index and cache namespace (and the
     * template's hash): every method's LLM stages get that list from here, never a copy of it.
     */
    llm<
      const R extends keyof Params & string = never,
      const I extends InputSpecs = Record<never, never>,
      O = unknown,
      const T extends NumericKnob<Params> & string = 'temperature' & NumericKnob<Params>,
      const M extends NumericKnob<Params> & string = 'maxTokens' & NumericKnob<Params>,
      const E extends keyof Params & string = never,
    >(spec: LlmSpec<Params, R, I, O, T, M, E>): StageDefinition<Pick<Params, R | T | M | keyof CommonParams>, O, I> & { readonly implementation: LlmStage } {
      const inputs = (spec.inputs ?? {}) as I;
      const temperatureKnob = spec.temperatureKnob ?? 'temperature';
      const maxTokens = spec.maxTokens ?? 'maxTokens';
      const llmReads = ['model', temperatureKnob, ...(typeof maxTokens === 'string' ? [maxTokens] : []), 'sampleIndex', 'cacheNamespace'];
      const call = (ctx: EstimateContext, inputValues: InputsOf<I> | undefined): LlmCall => {
        const params = ctx.params;
        return {
          model: String(params.model),
          messages: renderTemplate(spec.template, spec.render(ctx as never, inputValues)),
          temperature: params[temperatureKnob] as number,
          maxTokens: typeof maxTokens === 'string' ? params[maxTokens] as number : maxTokens.fixed,
          sampleIndex: params.sampleIndex as number,
          templateVersion: spec.template.hash,
          expectedOutputTokens: spec.expectedOutputTokens,
        };
      };
      return {
        name: spec.name, role: 'llm', version: spec.version, reads: [...new Set([...llmReads, ...(spec.reads ?? [])])], inputs,
        scope: spec.scope ?? 'item', template: spec.template, final: false,
        implementation: {
          kind: 'llm',
          prompt: (ctx) => call(ctx, typedContext(ctx, inputs).inputs),
          ...(spec.notEstimable ? {} : { estimate: (ctx: EstimateContext) => call(ctx, undefined) }),
          ...(spec.skip ? { skip: (ctx: StageContext) => spec.skip!(typedContext(ctx, inputs)) } : {}),
          ...(spec.skipsFor ? { skipsFor: (ctx: EstimateContext) => spec.skipsFor!(ctx as never) } : {}),
          parse: (response, ctx) => spec.parse(response, typedContext(ctx, inputs)),
        },
      };
    },
  };
}

/** Stage definitions for the stages of pipeline P. */
export function stagesOf<P extends PipelineName>(_pipeline: P) {
  return stagesReading<ParamsOf<P>>();
}

/**
 * The one place where the untyped context a worker builds becomes the typed one: the planner wrote `params` from the
 * grid its zod schema checked (so a knob holds its declared type), and `inputs` by the graph this stage's wiring
 * type-checked.
 */
function typedContext<Params, I extends InputSpecs>(ctx: StageContext, specs: I): TypedContext<Params, I> {
  const inputs: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.kind === 'list') inputs[name] = listInputs(ctx.inputs, name);
    else if (spec.kind === 'train-items') inputs[name] = trainItemInputs(ctx.inputs, name);
    else inputs[name] = ctx.inputs[name];
  }
  return { ...ctx, params: ctx.params as Params, inputs: inputs as InputsOf<I> };
}

function listInputs(raw: Record<string, unknown>, name: string): unknown[] {
  const out: unknown[] = [];
  for (let i = 1; `${name}${i}` in raw; i++) out.push(raw[`${name}${i}`]);
  return out;
}

function trainItemInputs(raw: Record<string, unknown>, name: string): Map<string, unknown> {
  const prefix = `${name}/`;
  return new Map(Object.entries(raw).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v]));
}

