import type { PipelineName } from '../pipeline-params';

/**
 * The paper tables and figures that the bundled sweep configs (configs/sweeps/*.yaml) reproduce, written from the
 * papers in ../shared/seeds: for each config, one row per distinct experiment of the table with the knobs the paper
 * gives for it and the paper's number. paper-configs.spec.ts checks that each config expands to exactly these rows.
 *
 * A row names every knob that the table varies (so that the full method's row cannot match an ablation), not the
 * knobs every row shares at their defaults; knob lines other helpers add to a config (encoder operating points, RAG
 * corpus, ...) are outside the rows and do not matter here.
 */
export interface PaperNumber {
  /** The dataset split the paper reports on, e.g. "BIRD dev". */
  dataset: string;
  metric: 'EX' | 'TS' | 'VES';
  value: number;
}

export interface PaperRow {
  /** The row as the paper labels it; rows that are one experiment (a shared base) are joined with " = ". */
  row: string;
  pipeline: PipelineName;
  /** The knobs the paper gives for this row, as the grid names them. */
  knobs: Record<string, string | number | boolean>;
  /** The paper's numbers for this row; empty where the paper reports the row in a figure only or omits it. */
  paper: PaperNumber[];
}

export interface PaperTable {
  /** Which paper (seed file) and which table or figure. */
  source: string;
  /** The dataset the config must name, where the config's point is that dataset (the Spider robustness columns). */
  dataset?: string;
  rows: PaperRow[];
}

/**
 * The settings each paper states for all its experiments: every variant of a paper config has them, except where
 * its row names the knob (a sweep over it). θ is left out: the configs give it as the operating point θ = 13 stands
 * for (docs/methods/rb-sql.md).
 */
export const paperSettings: Partial<Record<PipelineName, Record<string, string | number | boolean>>> = {
  // RB-SQL appendix B: gpt-4-turbo at temperature 0.1; μ = 5 from the grid search.
  'rb-sql': { temperature: 0.1, mu: 5 },
  // R3 §4.1: temperature 0, chunks of 50 tokens, a 300-token budget, RAG on linking and decomposition only.
  r3: { temperature: 0, ragChunkTokens: 50, ragBudgetTokens: 300, ragInLinking: true, ragInDecomposition: true, ragInGeneration: false },
  // UCS-SQL §4: temperature 0.1, θ1 = 2, θ2 = 3.
  'ucs-sql': { temperature: 0.1, theta1: 2, theta2: 3 },
  // DR-Chain §4.1.1: generation τ = 0.5, simplification τ = 1.0, k1 = k2 = 4.
  'dr-chain': { temperature: 0.5, simplifyTemperature: 1, k1: 4, k2: 4 },
};

/** Configs in configs/sweeps that reproduce no paper table, with the reason. */
export const notPaperConfigs: Record<string, string> = {
  'demo.yaml': 'the demo: every method once, two simulated models, 20 items',
  'baselines.yaml': 'our own baselines (zero-shot, fixed and random k-shot); no paper table has this grid',
};

const ucsSwitches = { contentPipe: true, structurePipe: true, questionTransitional: true, transitional: true, sqlStage: true };
/** UCS-SQL Table 3 groups 1 and 2 are at fixed 2-shot (their headers say so; the base 66.82 is the "2-shot (fixed)" row). */
const ucsFixed2 = { ...ucsSwitches, shots: 2, shotSelection: 'fixed' };
const ucsBirdEx = (value: number): PaperNumber[] => [{ dataset: 'BIRD dev', metric: 'EX', value }];

const rbBirdEx = (value: number): PaperNumber[] => [{ dataset: 'BIRD dev', metric: 'EX', value }];
const rbFull = { schemaFilter: true, skeletonOrganization: true, shots: 3, shotSelection: 'skeleton', errorCorrection: true };

const r3Rag = { ragInLinking: true, ragInDecomposition: true, ragInGeneration: false };
/** R3 Table 3 (GPT-4, EX %), one column per dataset. */
function r3Table3(dataset: string, noSl: number, noQd: number, noRag: number, full: number): PaperRow[] {
  const ex = (value: number): PaperNumber[] => [{ dataset, metric: 'EX', value }];
  return [
    { row: 'Full', pipeline: 'r3', knobs: { schemaLinking: true, decomposition: true, rag: true, ...r3Rag }, paper: ex(full) },
    { row: 'No SL', pipeline: 'r3', knobs: { schemaLinking: false, decomposition: true, rag: true, ...r3Rag }, paper: ex(noSl) },
    { row: 'No QD', pipeline: 'r3', knobs: { schemaLinking: true, decomposition: false, rag: true, ...r3Rag }, paper: ex(noQd) },
    { row: 'No RAG', pipeline: 'r3', knobs: { schemaLinking: true, decomposition: true, rag: false }, paper: ex(noRag) },
  ];
}

/** DR-Chain Fig. 2 (full, w/o simplify, w/o revise); the full row's number is Table 1 (Spider) or Table 2 (variants). */
function drChainFig2(full: PaperNumber[]): PaperRow[] {
  return [
    { row: 'Ours (full)', pipeline: 'dr-chain', knobs: { simplification: true, revision: true }, paper: full },
    { row: 'w/o simplify', pipeline: 'dr-chain', knobs: { simplification: false, revision: true }, paper: [] },
    { row: 'w/o revise', pipeline: 'dr-chain', knobs: { simplification: true, revision: false }, paper: [] },
  ];
}

export const paperTables: Record<string, PaperTable> = {
  'ucs-sql-table3.yaml': {
    source: 'UCS-SQL (seed 003) Table 3, GPT-4o',
    rows: [
      { row: 'w/ both pipes = w/ three stages = 2-shot (fixed)', pipeline: 'ucs-sql', knobs: ucsFixed2, paper: ucsBirdEx(66.82) },
      { row: 'w/o content pipe', pipeline: 'ucs-sql', knobs: { ...ucsFixed2, contentPipe: false }, paper: ucsBirdEx(65.58) },
      { row: 'w/o structure pipe', pipeline: 'ucs-sql', knobs: { ...ucsFixed2, structurePipe: false }, paper: ucsBirdEx(65.78) },
      { row: 'w/o question & transitional stage', pipeline: 'ucs-sql', knobs: { ...ucsFixed2, questionTransitional: false }, paper: ucsBirdEx(65.0) },
      { row: 'w/o transitional stage', pipeline: 'ucs-sql', knobs: { ...ucsFixed2, transitional: false }, paper: ucsBirdEx(65.65) },
      { row: 'w/o SQL stage', pipeline: 'ucs-sql', knobs: { ...ucsFixed2, sqlStage: false }, paper: ucsBirdEx(65.39) },
      { row: '0-shot', pipeline: 'ucs-sql', knobs: { ...ucsSwitches, shots: 0 }, paper: ucsBirdEx(63.24) },
      { row: '2-shot (SS-QE)', pipeline: 'ucs-sql', knobs: { ...ucsSwitches, shots: 2, shotSelection: 'ss-qe' }, paper: ucsBirdEx(68.28) },
      { row: '5-shot (SS-QE) = UCS-SQL', pipeline: 'ucs-sql', knobs: { ...ucsSwitches, shots: 5, shotSelection: 'ss-qe' }, paper: ucsBirdEx(70.95) },
    ],
  },
  'ucs-sql-table5.yaml': {
    source: 'UCS-SQL (seed 003) Table 5, GPT-4o, 5-shot',
    rows: [
      { row: 'w/ DAIL_S', pipeline: 'ucs-sql', knobs: { ...ucsSwitches, shots: 5, shotSelection: 'dail' }, paper: ucsBirdEx(69.21) },
      { row: 'w/ SS-QE', pipeline: 'ucs-sql', knobs: { ...ucsSwitches, shots: 5, shotSelection: 'ss-qe' }, paper: ucsBirdEx(70.95) },
    ],
  },
  'rb-sql-table4.yaml': {
    source: 'RB-SQL (seed 000) Table 4, GPT-4',
    rows: [
      // Row (2) is the bare GPT-4 of Table 2 (46.35), the zero-shot baseline; row (3) adds only the retrievers.
      { row: '(2) GPT-4', pipeline: 'rb-sql', knobs: { schemaFilter: false, skeletonOrganization: false, shots: 0, errorCorrection: false }, paper: rbBirdEx(46.35) },
      { row: '(3) + Table-Retriever & Column-Retriever', pipeline: 'rb-sql', knobs: { schemaFilter: true, skeletonOrganization: false, shots: 0, errorCorrection: false }, paper: rbBirdEx(54.06) },
      { row: '(4) + SQL skeleton (example organization)', pipeline: 'rb-sql', knobs: { ...rbFull, shotSelection: 'random', errorCorrection: false }, paper: rbBirdEx(54.48) },
      { row: '(5) + SQL-Skeleton-Retriever (example selection)', pipeline: 'rb-sql', knobs: { ...rbFull, errorCorrection: false }, paper: rbBirdEx(55.19) },
      { row: '(6) + Error correction = (1) RB-SQL + GPT-4', pipeline: 'rb-sql', knobs: rbFull, paper: rbBirdEx(58.07) },
    ],
  },
  'rb-sql-table5.yaml': {
    source: 'RB-SQL (seed 000) Table 5, GPT-4',
    rows: ([[0, 56.77, 74.1], [1, 56.96, 82.13], [3, 58.07, 84.75], [5, 57.88, 86.89]] as const).map(([shots, bird, spider]) => ({
      row: `${shots}-shot`,
      pipeline: 'rb-sql' as const,
      knobs: { ...rbFull, shots },
      paper: [...rbBirdEx(bird), { dataset: 'Spider dev', metric: 'EX' as const, value: spider }],
    })),
  },
  'rb-sql-table3.yaml': {
    source: 'RB-SQL (seed 000) Table 3, GPT-4, Spider (the "+ Generated Evidence" row is left out: no evidence-generation stage)',
    rows: [{ row: 'RB-SQL + GPT-4', pipeline: 'rb-sql', knobs: rbFull, paper: [{ dataset: 'Spider dev', metric: 'EX', value: 84.91 }] }],
  },
  'rb-sql-fig6.yaml': {
    source: 'RB-SQL (seed 000) Figure 6 (b, c): μ at θ = 13, without error correction (figure only)',
    rows: [1, 3, 5, 7, 9, 11].map((mu) => ({ row: `μ = ${mu}`, pipeline: 'rb-sql' as const, knobs: { ...rbFull, mu, errorCorrection: false }, paper: [] })),
  },
  'rb-sql-fig6a.yaml': {
    source: 'RB-SQL (seed 000) Figure 6 (a): θ ∈ {11..16} (the grid of appendix B), Table-Retriever recall and reduction (figure only)',
    rows: [11, 12, 13, 14, 15, 16].map((theta) => ({ row: `θ = ${theta}`, pipeline: 'rb-sql' as const, knobs: { ...rbFull, theta, errorCorrection: false }, paper: [] })),
  },
  'r3-table3.yaml': { source: 'R3 (seed 001) Table 3, GPT-4, Spider-dev column', rows: r3Table3('Spider dev', 85.8, 86.3, 87.5, 88.1) },
  'r3-table3-spider-dk.yaml': { source: 'R3 (seed 001) Table 3, GPT-4, Spider-DK column', dataset: 'spider-dk', rows: r3Table3('Spider-DK', 74.2, 71.3, 71.4, 76.5) },
  'r3-table3-spider-syn.yaml': { source: 'R3 (seed 001) Table 3, GPT-4, Spider-SYN column', dataset: 'spider-syn', rows: r3Table3('Spider-SYN', 74.9, 71.1, 73.4, 76.1) },
  'r3-table3-spider-realistic.yaml': {
    source: 'R3 (seed 001) Table 3, GPT-4, Spider-Realistic column',
    dataset: 'spider-realistic',
    rows: r3Table3('Spider-Realistic', 76.2, 74.6, 74.8, 80.2),
  },
  'r3-rag-budget.yaml': {
    source: 'R3 (seed 001) Figure 5: RAG token budget (figure only)',
    rows: [50, 100, 200, 300, 400, 500].map((budget) => ({ row: `budget ${budget}`, pipeline: 'r3' as const, knobs: { rag: true, ...r3Rag, ragChunkTokens: 50, ragBudgetTokens: budget }, paper: [] })),
  },
  'r3-rag-generation.yaml': {
    source: 'R3 (seed 001) §4.1: RAG on the SQL generation stage too (results omitted by the paper)',
    rows: [
      { row: 'Full (RAG on linking and decomposition)', pipeline: 'r3', knobs: { rag: true, ...r3Rag }, paper: [{ dataset: 'Spider dev', metric: 'EX', value: 88.1 }] },
      { row: 'RAG on all three stages', pipeline: 'r3', knobs: { rag: true, ...r3Rag, ragInGeneration: true }, paper: [] },
    ],
  },
  'dr-chain-ablations.yaml': {
    source: 'DR-Chain (seed 004) Figure 2, Spider; full method Table 1 (text-davinci-003)',
    rows: drChainFig2([{ dataset: 'Spider dev', metric: 'EX', value: 85.0 }, { dataset: 'Spider dev', metric: 'TS', value: 83.2 }]),
  },
  'dr-chain-fig2-spider-syn.yaml': {
    source: 'DR-Chain (seed 004) Figure 2, Spider-SYN; full method Table 2',
    dataset: 'spider-syn',
    rows: drChainFig2([{ dataset: 'Spider-SYN', metric: 'EX', value: 81.4 }, { dataset: 'Spider-SYN', metric: 'TS', value: 80.0 }]),
  },
  'dr-chain-fig2-spider-dk.yaml': {
    source: 'DR-Chain (seed 004) Figure 2, Spider-DK; full method Table 2',
    dataset: 'spider-dk',
    rows: drChainFig2([{ dataset: 'Spider-DK', metric: 'EX', value: 81.1 }]),
  },
  'dr-chain-fig3.yaml': {
    source: 'DR-Chain (seed 004) Figure 3: revision rounds 0..3 (figure only)',
    rows: [
      { row: '0 rounds (no revision)', pipeline: 'dr-chain', knobs: { simplification: true, revision: false }, paper: [] },
      ...[1, 2, 3].map((maxRevisions) => ({ row: `${maxRevisions} round(s)`, pipeline: 'dr-chain' as const, knobs: { simplification: true, revision: true, maxRevisions }, paper: [] })),
    ],
  },
};
