import { describeOperatingPoint, isOperatingPoint, resolveVariantKnobs, type ResolvedKnob, type ResolvedVariantSpec, type VariantSpec } from '@sqlsweep/contracts';
import type { DatabaseSchema } from '@sqlsweep/datasets';
import type { DatasetRepository, DatasetVersion, ResolvedKnobRecord, RetrievalCurve, RetrievalCurveRepository } from '@sqlsweep/db';
import { evaluateTableRetrieval, type Encoder } from '@sqlsweep/retrieval';
import { CURVE_THRESHOLDS, curveOptionsKey, curveOptionsOf, type CurveOptions } from './curve-options';
import { pickThreshold } from './pick-threshold';

/** Knobs that may be given as an operating point, per pipeline: each a table-retrieval threshold. */
const TABLE_THRESHOLD_KNOBS: Record<string, readonly string[]> = { 'rb-sql': ['theta'] };

export interface OperatingPointDeps {
  curves: RetrievalCurveRepository;
  datasets: DatasetRepository;
  /** The encoder the workers run (opened on first need). */
  encoder(): Promise<Encoder>;
  /** Where schema indexes are built and reused (the workers' `<data dir>/indexes`). */
  indexRoot: string;
  /** Progress of a curve being computed: items scored of total. */
  onProgress?(done: number, total: number): void;
}

/** A variant with its operating points resolved, and the record of how (stored with the run). */
export interface ResolvedVariant { variant: ResolvedVariantSpec; resolvedKnobs: ResolvedKnobRecord[] }

/**
 * Maps threshold operating points (`theta: { recall: 0.9 }`) to the threshold that reaches them with the workers'
 * encoder on the run's dataset version, from the stored `retrieval_curves` row, computed and stored first when
 * missing (every dev item scored once: minutes on Spider or BIRD with a CPU encoder).
 */
export class OperatingPointResolver {
  private readonly curves = new Map<string, Promise<RetrievalCurve>>();

  constructor(private readonly deps: OperatingPointDeps) {}

  static needsResolving(variant: VariantSpec): boolean {
    return Object.values(variant.params).some(isOperatingPoint);
  }

  async resolve(version: DatasetVersion, variant: VariantSpec): Promise<ResolvedVariant> {
    const records: ResolvedKnobRecord[] = [];
    const resolved: ResolvedKnob[] = [];
    for (const [knob, point] of Object.entries(variant.params)) {
      if (!isOperatingPoint(point)) continue;
      if (!(TABLE_THRESHOLD_KNOBS[variant.pipeline] ?? []).includes(knob)) {
        throw new Error(`${variant.pipeline}.${knob}: ${describeOperatingPoint(point)} is an operating point, which only ${Object.entries(TABLE_THRESHOLD_KNOBS).map(([p, ks]) => ks.map((k) => `${p}.${k}`).join(', ')).join(', ')} take`);
      }
      const { retrievalEvidence, muPrime, maxTableTokens } = variant.params;
      const curve = await this.curveFor(version, curveOptionsOf('dev', { withEvidence: retrievalEvidence, muPrime, maxTableTokens }));
      let chosen;
      try {
        chosen = pickThreshold(curve.points, point);
      } catch (e) {
        throw new Error(`${variant.label}: ${knob}=${describeOperatingPoint(point)} on ${curve.encoderName} over ${curve.items} items: ${(e as Error).message}`);
      }
      resolved.push({ knob, point, value: chosen.value });
      records.push({
        knob, point, value: chosen.value, recall: chosen.recall, reduction: chosen.reductionRatio,
        curve: { datasetHash: curve.datasetHash, encoder: curve.encoderName, encoderFingerprint: curve.encoderFingerprint, optionsKey: curve.optionsKey, items: curve.items },
      });
    }
    return { variant: resolveVariantKnobs(variant, resolved), resolvedKnobs: records };
  }

  private curveFor(version: DatasetVersion, options: CurveOptions): Promise<RetrievalCurve> {
    const optionsKey = curveOptionsKey(options);
    let curve = this.curves.get(optionsKey);
    if (!curve) {
      curve = this.loadOrCompute(version, options, optionsKey);
      this.curves.set(optionsKey, curve);
    }
    return curve;
  }

  private async loadOrCompute(version: DatasetVersion, options: CurveOptions, optionsKey: string): Promise<RetrievalCurve> {
    const encoder = await this.deps.encoder();
    const key = { datasetHash: version.contentHash, encoderFingerprint: encoder.fingerprint, optionsKey };
    const stored = await this.deps.curves.get(key);
    if (stored) return stored;
    const items = await this.deps.datasets.listItems(version.id, { split: options.split });
    const databases: DatabaseSchema[] = [];
    for (const dbId of new Set(items.map((i) => i.dbId))) {
      const db = await this.deps.datasets.getDatabase(version.id, dbId);
      if (db) databases.push(db.schema as DatabaseSchema);
    }
    const report = await evaluateTableRetrieval({
      dataset: {
        format: version.format, root: version.sourcePath, databases,
        items: items.map((i) => ({ id: i.itemId, split: i.split, dbId: i.dbId, question: i.question, evidence: i.evidence ?? undefined, goldSql: i.goldSql })),
      },
      datasetVersion: version.contentHash,
      encoder,
      indexRoot: this.deps.indexRoot,
      split: options.split,
      thresholds: [...CURVE_THRESHOLDS],
      topKs: [],
      withEvidence: options.withEvidence,
      muPrime: options.muPrime,
      maxTableTokens: options.maxTableTokens,
      onProgress: this.deps.onProgress,
    });
    const curve = { ...key, encoderName: report.encoder.name, items: report.items, points: report.thresholds };
    await this.deps.curves.put(curve);
    return { ...curve, createdAt: new Date() };
  }
}
