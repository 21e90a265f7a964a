import { definePipeline } from '../../define-pipeline';
import type { MethodModule } from '../../method';
import { evaluateStage, goldStage } from '../../stages/common';
import { zeroShotGenerate } from '../zero-shot';
import {
  contentStage, foreignKeysStage, generateStage, preselectStage, questionStage, selectShotsStage, shotCandidatesStage, skeletonStage, structureStage,
  trainContentStage, trainForeignKeysStage, trainPreselectStage, trainQuestionStage, trainStructureStage,
} from './stages';

/**
 * The UCS-SQL stage graph of one variant. Ablations remove stages from the graph (so the remaining stages keep the
 * keys they share with the full method); SS-QE's own information extraction of the target and of every training
 * question (Algorithm 1, lines 2 and 5) runs whenever SS-QE selects shots, even in ablations that hide it from the
 * SQL stage. DAIL selection (Table 5) drafts the target's SQL with the zero-shot baseline's own stage, so that draft
 * is shared with any zero-shot variant at the same model and settings.
 */
export const ucsSqlPipeline = definePipeline('ucs-sql', {
  graph: (g, { params: p }) => {
    const ssQe = p.shots > 0 && p.shotSelection === 'ss-qe';
    const stagesOn = p.questionTransitional;
    const transitionalOn = stagesOn && p.transitional;
    const useContent = transitionalOn && p.contentPipe;
    const useStructure = transitionalOn && p.structurePipe;
    const useTermsDirectly = stagesOn && !transitionalOn;

    g.add(goldStage);
    const preselect = p.preselect ? g.add(preselectStage) : undefined;
    const question = stagesOn || ssQe ? g.add(questionStage) : undefined;
    if (useContent || ssQe) g.add(contentStage, { preselect });
    const content = useContent || ssQe ? g.add(foreignKeysStage, { preselect }) : undefined;
    const structure = useStructure || ssQe ? g.add(structureStage) : undefined;
    if (ssQe) {
      // Training questions go through the same pre-processing, so |I| is counted on the same schema view.
      const trainPreselect = p.preselect ? g.add(trainPreselectStage) : undefined;
      g.add(trainQuestionStage);
      g.add(trainContentStage, { preselect: trainPreselect });
      g.add(trainForeignKeysStage, { preselect: trainPreselect });
      g.add(trainStructureStage);
    }
    let shots: typeof selectShotsStage | undefined;
    if (p.shots > 0) {
      if (p.shotSelection === 'ss-qe') {
        g.add(shotCandidatesStage, { content, structure, draft: undefined }, { without: ['dailThreshold'] });
      } else if (p.shotSelection === 'dail') {
        const draft = g.add(zeroShotGenerate);
        g.add(shotCandidatesStage, { content: undefined, structure: undefined, draft }, { without: ['theta1', 'theta2', 'trainContent', 'trainStructure'] });
      } else {
        g.add(shotCandidatesStage, { content: undefined, structure: undefined, draft: undefined }, {
          without: ['theta1', 'theta2', 'dailThreshold', 'trainContent', 'trainStructure'],
        });
      }
      shots = g.add(selectShotsStage);
    }
    const hints = {
      structure: useStructure ? structure : undefined,
      terms: useTermsDirectly ? question : undefined,
      shots,
    };
    const skeleton = p.sqlStage ? g.add(skeletonStage, hints) : undefined;
    const generated = g.add(generateStage, { preselect, content: useContent ? content : undefined, ...hints, skeleton });
    g.add(evaluateStage, { prediction: generated });
  },
  // Without training questions every shot selection comes back empty: the variant would silently be zero-shot.
  datasetNeeds: (v) => (v.params.shots > 0 ? [{ knob: 'shots', value: v.params.shots, trainItems: 1 }] : []),
});

export const ucsSqlMethod: MethodModule = {
  pipelines: { 'ucs-sql': ucsSqlPipeline },
  stages: [
    preselectStage, questionStage, contentStage, foreignKeysStage, structureStage,
    trainPreselectStage, trainQuestionStage, trainContentStage, trainForeignKeysStage, trainStructureStage, shotCandidatesStage, selectShotsStage, skeletonStage, generateStage,
  ],
};
