import type { PipelineKnobs, PipelineName, VariantSpec } from '@sqlsweep/contracts';
import type { AnyStage, InputSpecs, ParamsOf, ParamsOfStage, Wiring } from './define-stage';
import type { DatasetNeed, FileKnob, PipelineDefinition, StageNode } from './pipeline';

/** A variant of pipeline P, its knobs typed by P's grid schema. */
export interface TypedVariant<P extends PipelineName> extends Omit<VariantSpec, 'params'> {
  readonly params: PipelineKnobs<P>;
}

type SpecsOf<S> = S extends { readonly inputs: infer I extends InputSpecs } ? I : never;
/** A stage whose parameters the pipeline supplies; otherwise a type error that names what is missing. */
type Supplied<Params, S> = Params extends ParamsOfStage<S> ? unknown : { readonly 'the pipeline lacks a parameter this stage reads': ParamsOfStage<S> };
/** The wiring may be left out only when the stage has no input to wire. */
type WiringArgs<S> = Record<never, never> extends Wiring<SpecsOf<S>>
  ? [wiring?: Wiring<SpecsOf<S>>, options?: NodeOptions<S>]
  : [wiring: Wiring<SpecsOf<S>>, options?: NodeOptions<S>];
/** The names of S's train-items inputs. */
type TrainItemsInputs<S> = { [K in keyof SpecsOf<S>]: SpecsOf<S>[K] extends { readonly kind: 'train-items' } ? K : never }[keyof SpecsOf<S>] & string;
interface NodeOptions<S> {
  /**
   * Parameters, or train-items inputs, this variant's instance does not depend on (left out of its key), e.g. a seed
   * a fixed choice ignores; a train-items input left out reads as an empty map.
   */
  without?: ReadonlyArray<(keyof ParamsOfStage<S> & string) | TrainItemsInputs<S>>;
}

/**
 * Builds one item's stage graph for one variant, in topological order, from stage definitions: a stage the graph
 * names is the same object the registry runs, its parameters must be the pipeline's, and every input without a fixed
 * source is wired to a stage whose output type fits.
 */
export class GraphBuilder<Params> {
  readonly nodes: StageNode[] = [];

  add<S extends AnyStage>(stage: S & Supplied<Params, S>, ...[wiring, options]: WiringArgs<S>): S {
    const wired = (wiring ?? {}) as Record<string, AnyStage | readonly AnyStage[] | undefined>;
    const without = new Set<string>(options?.without ?? []);
    const inputs: Record<string, string> = {};
    for (const [name, spec] of Object.entries(stage.inputs as InputSpecs)) {
      if (without.has(name)) continue;
      const source = spec.source ?? wired[name];
      if (spec.kind === 'list') (source as readonly AnyStage[]).forEach((s, i) => { inputs[`${name}${i + 1}`] = s.name; });
      else if (spec.kind === 'train-items') inputs[name] = `${spec.source!.name}[*]`;
      else if (source) inputs[name] = (source as AnyStage).name;
      else if (spec.kind === 'one') throw new Error(`stage ${stage.name}: input ${name} is not wired`);
    }
    this.nodes.push({
      stage: stage.name, role: stage.role, version: stage.version, reads: stage.reads.filter((r) => !without.has(r)), inputs,
      ...(stage.scope === 'train-items' ? { scope: 'train-items' as const } : {}),
      ...(stage.template ? { template: stage.template } : {}),
      ...(stage.final ? { final: true } : {}),
    });
    return stage;
  }
}

/** A pipeline whose graph is built from stage definitions, reading P's knobs typed (plus derived parameters `Extra`). */
export function definePipeline<P extends PipelineName, Extra = Record<never, never>>(name: P, spec: {
  graph(g: GraphBuilder<ParamsOf<P> & Extra>, variant: TypedVariant<P>): void;
  datasetNeeds?(variant: TypedVariant<P>): DatasetNeed[];
  fileKnobs?: FileKnob[];
}): PipelineDefinition {
  // The planner expanded the variant from the grid P's zod schema checked: its params hold P's knob types.
  const typed = (variant: VariantSpec) => variant as unknown as TypedVariant<P>;
  return {
    name,
    graph: (variant) => {
      const g = new GraphBuilder<ParamsOf<P> & Extra>();
      spec.graph(g, typed(variant));
      return g.nodes;
    },
    ...(spec.datasetNeeds ? { datasetNeeds: (variant: VariantSpec) => spec.datasetNeeds!(typed(variant)) } : {}),
    ...(spec.fileKnobs ? { fileKnobs: spec.fileKnobs } : {}),
  };
}
